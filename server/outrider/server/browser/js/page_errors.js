// What the page says is wrong with a field: HTML validity and aria-invalid messages.
(e) => {
  const messages = [];
  if (typeof e.checkValidity === 'function' && !e.checkValidity()) messages.push(e.validationMessage);
  if (e.getAttribute('aria-invalid') === 'true') {
    const ids = (e.getAttribute('aria-errormessage') || e.getAttribute('aria-describedby') || '').split(/\s+/);
    for (const id of ids) { const el = id && document.getElementById(id); if (el && el.innerText.trim()) messages.push(el.innerText.trim()); }
  }
  return messages.join(' ');
}
