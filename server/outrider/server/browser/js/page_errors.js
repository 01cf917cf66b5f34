// What the page says is wrong with a field: its HTML validity message always, and, of what
// changed since watch_errors.js started (everything on a page loaded since then), aria-invalid
// messages; after a submit also an error message next to the field and alerts or live regions
// (a polite one only when it looks like an error or the field is marked invalid). Messages left
// over from an earlier attempt do not count. Returns {field, form}: the field's own messages and
// the form-level ones.
(e, afterSubmit) => {
  const text = (el) => (el && el.innerText || '').trim();
  const visible = (el) => !!(el.offsetWidth || el.offsetHeight || el.getClientRects().length);
  const watched = window.__outriderTouched;
  const fresh = (el) => !watched || watched.has(el);
  const looksLikeError = (el) => /error|invalid|fail/i.test(el.className + ' ' + el.id);
  const own = [];
  if (typeof e.checkValidity === 'function' && !e.checkValidity()) own.push(e.validationMessage);
  const invalid = e.getAttribute('aria-invalid') === 'true';
  const ids = (e.getAttribute('aria-errormessage') || e.getAttribute('aria-describedby') || '').split(/\s+/);
  for (const id of ids) {
    const el = id && document.getElementById(id);
    if (!el || !visible(el) || !text(el) || own.includes(text(el))) continue;
    if ((invalid || (afterSubmit && looksLikeError(el))) && (fresh(e) || fresh(el))) own.push(text(el));
  }
  if (!afterSubmit) return { field: own.join(' '), form: '' };
  // "Next to the field": inside the largest wrapper holding no other control, or else among the
  // siblings after it up to the next control.
  const CONTROLS = 'input:not([type=hidden]), select, textarea';
  const single = (el) => el && el.tagName !== 'FORM' && el !== document.body
    && el.querySelectorAll(CONTROLS).length <= 1;
  let wrapper = single(e.parentElement) ? e.parentElement : null;
  while (wrapper && single(wrapper.parentElement)) wrapper = wrapper.parentElement;
  const near = [];
  if (wrapper) near.push(...wrapper.querySelectorAll('*'));
  else {
    for (let s = e.nextElementSibling; s && !s.matches(CONTROLS) && !s.querySelector(CONTROLS); s = s.nextElementSibling) {
      near.push(s, ...s.querySelectorAll('*'));
    }
  }
  for (const el of near) {
    if (el === e || el.contains(e) || !visible(el) || !text(el) || !fresh(el)) continue;
    if ((el.getAttribute('role') === 'alert' || looksLikeError(el)) && !own.includes(text(el))) own.push(text(el));
  }
  const nearby = new Set(near);  // looked up once per alert: a Set, not a scan of the wrapper
  const urgent = (el) => el.getAttribute('role') === 'alert' || el.getAttribute('aria-live') === 'assertive';
  // Alerts and live regions: of those that changed when a watch is on (only they count, and
  // looking among them costs what changed, not the page), in page order.
  const ALERTS = '[role=alert], [aria-live]:not([aria-live=off])';
  const changed = watched && window.__outriderChanged;
  const alerts = changed
    ? changed.filter((el) => el.getRootNode() === document && el.matches(ALERTS))
      .sort((a, b) => (a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1))
    : document.querySelectorAll(ALERTS);
  const form = [];
  for (const el of alerts) {
    if (nearby.has(el) || !visible(el) || !text(el) || !fresh(el)) continue;
    if (!urgent(el) && !invalid && !looksLikeError(el)) continue;
    form.push(text(el));
  }
  return { field: own.join(' '), form: form.join(' ') };
}
