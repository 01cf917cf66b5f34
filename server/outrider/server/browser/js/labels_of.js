// A helper the scripts that name it on a "// uses:" line get (js/__init__.py): a form control's
// labels in tree order, as its `labels` property gives them, without the walk of the whole
// document Chromium makes for that property at each control (milliseconds a control at 70,000
// elements). The labels around the control, and those naming its id, all of which one query
// finds once.
const labelsOf = (() => {
  const named = new Map();  // document or shadow root -> id -> the labels naming it
  const naming = (root, id) => {
    if (!named.has(root)) {
      const byId = new Map();
      for (const label of root.querySelectorAll('label[for]')) {
        byId.set(label.htmlFor, [...(byId.get(label.htmlFor) || []), label]);
      }
      named.set(root, byId);
    }
    return named.get(root).get(id) || [];
  };
  return (el) => {
    const found = [];
    for (let label = el.closest('label'); label; label = label.parentElement?.closest('label')) {
      if (label.control === el) found.push(label);
    }
    if (el.id) {
      for (const label of naming(el.getRootNode(), el.id)) {
        if (label.control === el && !found.includes(label)) found.push(label);
      }
    }
    return found.sort((a, b) => (a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1));
  };
})();
