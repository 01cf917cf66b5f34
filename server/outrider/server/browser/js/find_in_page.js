// Interactive elements and headings anywhere on the page whose text contains the query.
([query, limit]) => {
  const wanted = query.toLowerCase();
  const interactive = 'a[href],button,input,select,textarea,summary,[role=button],[role=link],[onclick],h1,h2,h3,h4,h5,h6';
  let next = Number(document.documentElement.dataset.outriderNext || 1);
  const found = [];
  for (const el of document.querySelectorAll(interactive)) {
    const text = (el.getAttribute('aria-label') || el.innerText || el.getAttribute('placeholder') || el.value || '').trim();
    if (!text.toLowerCase().includes(wanted)) continue;
    if (/^H[1-6]$/.test(el.tagName)) { found.push(`- heading ${JSON.stringify(text.slice(0, 80))}`); }
    else {
      if (!el.dataset.outriderRef) el.dataset.outriderRef = String(next++);
      found.push(`- ${el.tagName.toLowerCase()} ${JSON.stringify(text.slice(0, 80))} [ref=dom${el.dataset.outriderRef}]`);
    }
    if (found.length >= limit) break;
  }
  document.documentElement.dataset.outriderNext = String(next);
  return found;
}
