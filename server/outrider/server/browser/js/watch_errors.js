// Starts noting which alerts and live regions change from now on, so that
// page_errors.js after a submit reports what the submit caused, not what was there before.
() => {
  const touched = new WeakSet();
  const REGIONS = '[role=alert], [aria-live]:not([aria-live=off])';
  const note = (node) => {
    const el = node.nodeType === 1 ? node : node.parentElement;
    const region = el && el.closest(REGIONS);
    if (region) touched.add(region);
    if (el && node.nodeType === 1) el.querySelectorAll(REGIONS).forEach(r => touched.add(r));
  };
  const observer = new MutationObserver((records) => records.forEach((r) => {
    note(r.target);
    r.addedNodes.forEach(note);
  }));
  observer.observe(document.documentElement, {
    subtree: true, childList: true, characterData: true,
    attributes: true, attributeFilter: ['class', 'style', 'hidden', 'role', 'aria-live'],
  });
  if (window.__outriderWatch) window.__outriderWatch.disconnect();
  window.__outriderWatch = observer;
  window.__outriderTouched = touched;
}
