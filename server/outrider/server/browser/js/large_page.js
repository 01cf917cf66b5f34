// A fast, flat view of a very large page: headings and interactive elements near the viewport,
// each interactive one tagged with a data-outrider-ref so actions can find it again.
([above, below, maxLines]) => {
  const top = -above * innerHeight, bottom = innerHeight * (1 + below);
  const interactive = 'a[href],button,input,select,textarea,summary,[role=button],[role=link],' +
    '[role=checkbox],[role=tab],[role=menuitem],[onclick],[contenteditable=true]';
  const quote = (text) => JSON.stringify(text.trim().replace(/\s+/g, ' ').slice(0, 80));
  const nameOf = (el) => el.getAttribute('aria-label') || (el.labels && el.labels[0] ? el.labels[0].innerText : '')
    || el.getAttribute('placeholder') || el.innerText || el.getAttribute('title') || '';
  const roles = { A: 'link', BUTTON: 'button', SELECT: 'combobox', TEXTAREA: 'textbox', SUMMARY: 'button' };
  const inputRoles = { checkbox: 'checkbox', radio: 'radio', submit: 'button', button: 'button', search: 'searchbox' };
  const roleOf = (el) => el.getAttribute('role') || roles[el.tagName]
    || (el.tagName === 'INPUT' ? inputRoles[el.type] || 'textbox' : 'generic');
  let next = Number(document.documentElement.dataset.outriderNext || 1);
  const lines = [];
  let before = 0, after = 0;
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_ELEMENT);
  for (let el = walker.currentNode; el; el = walker.nextNode()) {
    const heading = /^H[1-6]$/.test(el.tagName);
    const live = el.matches('[role=status],[role=alert],[aria-live]');
    if (!heading && !live && !el.matches(interactive)) continue;
    const box = el.getBoundingClientRect();
    if (box.width === 0 && box.height === 0 && !live) continue;
    if (box.bottom < top) { before++; continue; }
    if (box.top > bottom || lines.length >= maxLines) { after++; continue; }
    if (heading || live) {
      if (el.innerText.trim()) lines.push(`- ${heading ? 'heading' : 'status'} ${quote(el.innerText)}`);
      continue;
    }
    if (!el.dataset.outriderRef) el.dataset.outriderRef = String(next++);
    let line = `- ${roleOf(el)} ${quote(nameOf(el))} [ref=dom${el.dataset.outriderRef}]`;
    const plain = el.tagName === 'INPUT' && !['password', 'checkbox', 'radio', 'submit', 'button'].includes(el.type);
    if ((plain || el.tagName === 'TEXTAREA') && el.value) line += `: ${el.value}`;
    if (el.checked) line += ' [checked]';
    lines.push(line);
  }
  document.documentElement.dataset.outriderNext = String(next);
  return { lines, before, after };
}
