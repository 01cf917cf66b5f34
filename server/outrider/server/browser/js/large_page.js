// A fast, flat view of a very large page: headings and interactive elements near the viewport,
// each interactive one tagged with a data-outrider-ref so actions can find it again. One
// selector query finds the candidates (the browser's own pass over the page, to count them);
// the rest follows the viewport: only some are measured, the first and last EDGE (a fixed
// header, a cookie bar) and those near the viewport, found by bisection in document order, which
// on a page in normal flow is top to bottom. Those between are counted above or below the
// viewport by their place in that order.
// uses: labels_of.js
([above, below, maxLines]) => {
  const top = -above * innerHeight, bottom = innerHeight * (1 + below);
  const interactive = 'a[href],button,input,select,textarea,summary,[role=button],[role=link],' +
    '[role=checkbox],[role=tab],[role=menuitem],[onclick],[contenteditable=true]';
  const LIVE = '[role=status],[role=alert],[aria-live]';
  const quote = (text) => JSON.stringify(text.trim().replace(/\s+/g, ' ').slice(0, 80));
  const nameOf = (el) => el.getAttribute('aria-label') || labelsOf(el)[0]?.innerText
    || el.getAttribute('placeholder') || el.innerText || el.getAttribute('title') || '';
  const roles = { A: 'link', BUTTON: 'button', SELECT: 'combobox', TEXTAREA: 'textbox', SUMMARY: 'button' };
  const inputRoles = { checkbox: 'checkbox', radio: 'radio', submit: 'button', button: 'button', search: 'searchbox' };
  const roleOf = (el) => el.getAttribute('role') || roles[el.tagName]
    || (el.tagName === 'INPUT' ? inputRoles[el.type] || 'textbox' : 'generic');
  let next = Number(document.documentElement.dataset.outriderNext || 1);
  const lines = [];
  let before = 0, after = 0;
  // Where an element lies: null (no box, and not a live region), or -1, 0, 1 (above the window
  // of interest, in it, below it).
  const placeOf = (el) => {
    const box = el.getBoundingClientRect();
    if (box.width === 0 && box.height === 0 && !el.matches(LIVE)) return null;
    return box.bottom < top ? -1 : (box.top > bottom ? 1 : 0);
  };
  const visit = (el, place = placeOf(el)) => {
    if (place === null) return;
    if (place < 0) { before++; return; }
    if (place > 0 || lines.length >= maxLines) { after++; return; }
    const heading = /^H[1-6]$/.test(el.tagName);
    if (heading || el.matches(LIVE)) {
      if (el.innerText.trim()) lines.push(`- ${heading ? 'heading' : 'status'} ${quote(el.innerText)}`);
      return;
    }
    if (!el.dataset.outriderRef) el.dataset.outriderRef = String(next++);
    let line = `- ${roleOf(el)} ${quote(nameOf(el))} [ref=dom${el.dataset.outriderRef}]`;
    const plain = el.tagName === 'INPUT' && !['password', 'checkbox', 'radio', 'submit', 'button'].includes(el.type);
    if ((plain || el.tagName === 'TEXTAREA') && el.value) line += `: ${el.value}`;
    if (el.checked) line += ' [checked]';
    lines.push(line);
  };
  // Hidden inputs never have a box: left out of the query, they are not counted unmeasured.
  const wanted = `h1,h2,h3,h4,h5,h6,${LIVE},${interactive.replace('input,', 'input:not([type=hidden]),')}`;
  const found = document.body ? document.body.querySelectorAll(wanted) : [];
  const all = document.body && document.body.matches(wanted) ? [document.body, ...found] : found;
  const EDGE = 100, SLACK = 50;
  const visitAll = (from, to) => { for (let i = from; i < to; i++) visit(all[i]); };
  if (all.length <= 2 * EDGE + 4 * SLACK) visitAll(0, all.length);
  else {
    const end = all.length - EDGE;
    visitAll(0, EDGE);
    const aboveAt = (i) => {  // the first element with a box from i on lies above the window
      for (let j = i; j < Math.min(i + SLACK, end); j++) {
        const place = placeOf(all[j]);
        if (place !== null) return place < 0;
      }
      return false;
    };
    let [low, high] = [EDGE, end];
    while (low < high) {
      const middle = (low + high) >> 1;
      if (aboveAt(middle)) low = middle + 1;
      else high = middle;
    }
    // From a little before the first one not above, until SLACK in a row lie below.
    let i = Math.max(EDGE, low - SLACK);
    before += i - EDGE;
    for (let below = 0; i < end && below < SLACK && lines.length < maxLines; i++) {
      const place = placeOf(all[i]);
      if (place !== null) below = place > 0 ? below + 1 : 0;
      visit(all[i], place);
    }
    after += end - i;
    visitAll(end, all.length);
  }
  document.documentElement.dataset.outriderNext = String(next);
  return { lines, before, after };
}
