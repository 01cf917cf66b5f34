// Why an action cannot happen to this element, when that is certain; null lets Playwright try.
// kind: "click" (also check/uncheck), "fill" or "select". A click target counts as covered only
// when another element (neither inside it nor around it) is on top of its centre twice, a few
// frames apart, so a closing animation is not taken for an overlay.
async (e, kind) => {
  const short = (el) => {
    const id = el.id ? `#${el.id}` : '';
    const cls = typeof el.className === 'string' && el.className.trim()
      ? '.' + el.className.trim().split(/\s+/).slice(0, 2).join('.') : '';
    const text = (el.innerText || el.textContent || '').replace(/\s+/g, ' ').trim().slice(0, 60);
    return `<${el.tagName.toLowerCase()}${id}${cls}>${text ? ` "${text}"` : ''}`;
  };
  const disabled = e.disabled || e.closest('[aria-disabled="true"]') || e.matches(':disabled');
  if (disabled) return 'it is disabled';
  if (kind === 'select') {
    if (e.tagName === 'SELECT') return null;
    const typed = e.tagName === 'INPUT' || e.isContentEditable;
    return typed
      ? 'it is not a select list but a text field (combobox): fill in text, then click one of the options it shows'
      : 'it is not a select list: click it to open its options, then click one';
  }
  if (kind === 'fill') {
    const field = ['INPUT', 'TEXTAREA'].includes(e.tagName) || e.isContentEditable;
    if (e.tagName === 'SELECT') return 'it is a select list: use select with an option label';
    if (!field) return null;
    if (e.readOnly) return 'it is read-only';
    return null;
  }
  if (!e.checkVisibility()) return null;
  const ancestorsOf = (node) => {
    const chain = [];
    for (let n = node; n; n = n.parentNode || n.host) chain.push(n);
    return chain;
  };
  const hitOnTop = () => {
    const box = e.getBoundingClientRect();
    if (!box.width || !box.height) return null;
    if (box.bottom < 0 || box.top > innerHeight || box.right < 0 || box.left > innerWidth) {
      e.scrollIntoView({ block: 'center', inline: 'center' });
      return hitOnTop.retried ? null : ((hitOnTop.retried = true), hitOnTop());
    }
    const root = e.getRootNode().elementFromPoint ? e.getRootNode() : document;
    const hit = root.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
    if (!hit || ancestorsOf(hit).includes(e) || ancestorsOf(e).includes(hit)) return null;
    if (hit.tagName === 'LABEL' && hit.control === e) return null;
    return hit;
  };
  if (!hitOnTop()) return null;
  await new Promise((r) => setTimeout(r, 250));
  const hit = hitOnTop();
  if (!hit) return null;
  const layer = hit.closest('dialog, [role=dialog], [role=alertdialog], [aria-modal="true"]')
    || ancestorsOf(hit).filter((n) => n instanceof Element
      && ['fixed', 'sticky', 'absolute'].includes(getComputedStyle(n).position)).pop();
  const cover = layer && layer !== hit ? `${short(hit)} inside ${short(layer)}` : short(hit);
  return `it is covered by ${cover}, which would get the click: close or dismiss that first`;
}
