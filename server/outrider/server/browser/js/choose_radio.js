// Clicks the radio button of a group whose label or value matches.
// uses: labels_of.js
(e, wanted) => {
  const scope = e.form || document;
  const radios = Array.from(scope.querySelectorAll(`input[type=radio][name="${CSS.escape(e.name)}"]`));
  const label = (r) => labelsOf(r)[0]?.innerText.trim() ?? r.value;
  const match = radios.find(r => label(r) === wanted || r.value === wanted);
  if (!match) return false;
  match.click();
  return true;
}
