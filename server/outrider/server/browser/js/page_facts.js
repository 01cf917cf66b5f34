// How many elements the page has (large pages get another view), and the accessible name of
// an open modal dialog: a <dialog> opened with showModal() or a visible aria-modal element.
() => {
  const nameOf = (e) => {
    const labelled = (e.getAttribute('aria-labelledby') || '').split(/\s+/)
      .map((id) => document.getElementById(id)?.textContent?.trim() || '').filter(Boolean);
    return (e.getAttribute('aria-label') || labelled.join(' ')).replace(/\s+/g, ' ').trim();
  };
  const modals = Array.from(document.querySelectorAll('dialog, [aria-modal="true"]')).filter(
    (e) => (e.tagName === 'DIALOG' ? e.matches(':modal') : e.checkVisibility()));
  const modal = modals.length ? nameOf(modals[modals.length - 1]) : null;
  return { count: document.getElementsByTagName('*').length, modal };
}
