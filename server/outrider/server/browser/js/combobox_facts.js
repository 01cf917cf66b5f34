// A combobox's note for the view: whether text can be typed into it, and the list it controls.
(e) => {
  const editable = (e.tagName === 'INPUT' && !e.readOnly && !e.disabled) || e.isContentEditable;
  const id = (e.getAttribute('aria-controls') || e.getAttribute('aria-owns') || '').split(/\s+/)[0];
  const list = id ? document.getElementById(id) : e.list || null;
  const label = list
    ? (list.getAttribute('aria-label') || list.id || '').replace(/"/g, "'")
    : '';
  const notes = [editable ? '[editable]' : '[not editable]'];
  if (label) notes.push(`[controls "${label}"]`);
  return notes.join(' ');
}
