// Starts noting which elements change from now on (an element counts as changed when it or
// anything inside it does), so that page_errors.js after a submit reports what the submit
// caused, not messages left over from before it; and keeps the texts the page shows now, which
// form_messages.js compares with what it shows after the submit.
() => {
  const touched = new WeakSet();
  const changed = [];  // the same elements in a list: page_errors.js looks for alerts among them
  const note = (node) => {
    for (let el = node.nodeType === 1 ? node : node.parentElement; el && !touched.has(el); el = el.parentElement) {
      touched.add(el);
      changed.push(el);
    }
  };
  const observer = new MutationObserver((records) => records.forEach((r) => {
    // Screenshots restyle fields (to hide the caret): that is no verdict of the page.
    if (r.attributeName === 'style' && r.target.matches('input, textarea, select')) return;
    note(r.target);
    r.addedNodes.forEach(note);
  }));
  observer.observe(document.documentElement, {
    subtree: true, childList: true, characterData: true, attributes: true,
    attributeFilter: ['class', 'style', 'hidden', 'role', 'aria-live', 'aria-invalid', 'aria-describedby', 'aria-errormessage'],
  });
  if (window.__outriderWatch) window.__outriderWatch.disconnect();
  window.__outriderWatch = observer;
  window.__outriderTouched = touched;
  window.__outriderChanged = changed;
  const shown = new Set();
  const walker = document.createTreeWalker(document.body || document.documentElement, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(), n = 0; node && n < 5000; node = walker.nextNode(), n++) {
    const text = node.data.replace(/\s+/g, ' ').trim();
    const parent = node.parentElement;
    if (text && parent && !parent.closest('script, style, noscript, template') && parent.checkVisibility()) shown.add(text);
  }
  window.__outriderShown = shown;
}
