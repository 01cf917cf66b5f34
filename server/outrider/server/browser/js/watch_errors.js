// Starts noting which elements change from now on (an element counts as changed when it or
// anything inside it does), so that page_errors.js after a submit reports what the submit
// caused, not messages left over from before it.
() => {
  const touched = new WeakSet();
  const note = (node) => {
    for (let el = node.nodeType === 1 ? node : node.parentElement; el && !touched.has(el); el = el.parentElement) {
      touched.add(el);
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
}
