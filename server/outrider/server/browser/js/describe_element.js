// Facts about one element and its form, for the firewall and form-data requests. Its cost follows
// the form: labels are looked up without a walk of the page (labels_of.js), and the form's
// heading is found by bisection of the page's headings, not by comparing each with the form.
// uses: labels_of.js
(e, harmlessTypes) => {
  const tag = e.tagName.toLowerCase();
  const type = tag === 'input' ? (e.getAttribute('type') || 'text').toLowerCase()
             : (tag === 'textarea' ? 'textarea' : (tag === 'select' ? 'select' : ''));
  const form = e.form || e.closest('form');
  const labelOf = (el) => {
    const own = labelsOf(el).map(l => l.innerText.trim()).filter(Boolean);
    return own[0] || el.getAttribute('aria-label') || el.getAttribute('placeholder')
      || el.getAttribute('name') || (el.innerText || '').trim().slice(0, 80) || '';
  };
  // What a person would call the form: its accessible name, its legend or heading, or the
  // nearest heading before it; never its HTML id.
  const textOf = (el) => (el && el.innerText || '').trim();
  const formLabel = (f) => {
    const ids = (f.getAttribute('aria-labelledby') || '').split(/\s+/).filter(Boolean);
    const named = f.getAttribute('aria-label') || ids.map(id => textOf(document.getElementById(id))).join(' ')
      || f.getAttribute('title') || textOf(f.querySelector('legend, h1, h2, h3, h4, h5, h6'));
    if (named && named.trim()) return named.trim();
    // The last heading with text before the form: of each level, by bisection in page order.
    const isBefore = (h, other) => h.compareDocumentPosition(other) & Node.DOCUMENT_POSITION_FOLLOWING;
    let last = null;
    for (const tag of ['h1', 'h2', 'h3', 'h4', 'h5', 'h6']) {
      const all = document.getElementsByTagName(tag);
      let [low, high] = [0, all.length];
      while (low < high) {
        const middle = (low + high) >> 1;
        if (isBefore(all[middle], f)) low = middle + 1;
        else high = middle;
      }
      let i = low - 1;
      while (i >= 0 && !textOf(all[i])) i--;
      if (i >= 0 && (!last || isBefore(last, all[i]))) last = all[i];
    }
    return last ? textOf(last) : '';
  };
  let options = [];
  if (tag === 'select') options = Array.from(e.options).filter(o => o.value !== '').map(o => o.label);
  if (type === 'radio' && e.name) {
    const scope = form || document;
    options = Array.from(scope.querySelectorAll(`input[type=radio][name="${CSS.escape(e.name)}"]`))
      .map(labelOf);
  }
  const harmless = new Set(harmlessTypes);
  const sensitive = (el) => {
    const t = (el.getAttribute && (el.getAttribute('type') || '').toLowerCase()) || '';
    const tg = el.tagName.toLowerCase();
    if (tg === 'select' || tg === 'button' || el.getAttribute('role') === 'searchbox') return false;
    if (tg === 'input' && harmless.has(t)) return false;
    return (tg === 'input' || tg === 'textarea') && !!el.value;
  };
  const isSubmit = (tag === 'button' && (!e.getAttribute('type') || e.getAttribute('type') === 'submit') && !!form)
    || (tag === 'input' && (type === 'submit' || type === 'image') && !!form);
  return {
    tag, type, role: e.getAttribute('role') || '', label: labelOf(e),
    required: !!e.required || e.getAttribute('aria-required') === 'true',
    value: 'value' in e ? String(e.value ?? '') : '', checked: !!e.checked, options,
    inForm: !!form, isSubmit, opensTab: !!e.closest('a[target="_blank"]'),
    formAction: form ? (form.getAttribute('action') ? new URL(form.getAttribute('action'), location.href).href : location.href) : '',
    formHasData: form ? Array.from(form.elements).some(sensitive) : false,
    formMethod: form ? ((isSubmit && e.getAttribute('formmethod')) || form.method || 'get').toLowerCase() : '',
    formLabel: form ? formLabel(form) : '',
    pageUrl: location.href,
    name: e.getAttribute('name') || '', id: e.id || '',
  };
}
