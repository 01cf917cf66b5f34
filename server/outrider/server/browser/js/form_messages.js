// What the page says about the submitted fields without any ARIA: the visible text that the
// submit brought (text not shown before it, or text the page wrote again that reads as an
// error), against what watch_errors.js kept. Text in a field's own wrapper (the largest
// ancestor holding no other control), or closer in document order to that field than to any
// other control, is the field's, unless it reads as a success ("Thanks! Please check your
// inbox") or is a counter ("12 / 200 characters"). Text elsewhere in the form is the form's
// when it reads as an error. Text outside the form (a list above it, a toast, a banner) is
// the form's only when it reads as a plain failure ("is not valid"), names a field ("Guests
// must be ..."), or stands beside such text ("Please fix the following:"): a page-wide banner
// asking to "please choose" cookies is no verdict on the form. Its cost follows the text read
// (the first 5000 text nodes at most) and what lies between a message and its nearest control.
// Takes {fields: [element], labels: [text]}; returns {fields: [[message, ...] per field], form: [...]}.
({ fields, labels }) => {
  const shownBefore = window.__outriderShown;
  const touched = window.__outriderTouched;
  const result = { fields: fields.map(() => []), form: [] };
  if (!shownBefore || !document.body) return result;
  // A failure said outright, and words that only ask for something (a banner asks too).
  const FAILURE = /\b(errors?|invalid|fail(ed|s|ure)?|wrong|incorrect|not (valid|allowed|available|accepted|recogni[sz]ed|found|match)|too (short|long|weak|many|few)|mismatch|(do|does|did)(n't| not) match|taken|expired|denied|unable|cannot|can't|could not|couldn't|missing)\b/i;
  const ASKING = /\b(required|must|please|enter|choose|select|provide|at (least|most)|already)\b/i;
  const SUCCESS = /\b(thank|thanks|success|successful(ly)?|saved|sent|received|welcome|done|looks good|confirmed|subscribed)\b|✓|✔/i;
  const COUNTER = /^(\d[\d,.]*\s*(\/|of)\s*\d[\d,.]*|\d[\d,.]*)(\s*(characters?|chars?|words?|letters?))?(\s*(left|remaining|used|max(imum)?))?\.?$|^(characters?|words?) (left|remaining):?\s*\d[\d,.]*$/i;
  const CONTROLS = 'input:not([type=hidden]), select, textarea, button';
  const clean = (text) => text.replace(/\s+/g, ' ').trim();
  const failure = (message) => FAILURE.test(message);
  const asking = (message) => !SUCCESS.test(message) && ASKING.test(message);
  const notVerdict = (message) => COUNTER.test(message) || (SUCCESS.test(message) && !failure(message));
  const named = (message) => labels.some((label) => label && message.toLowerCase().includes(label.toLowerCase()));
  const blockOf = (el) => {
    for (let e = el; e && e !== document.body; e = e.parentElement) {
      const style = getComputedStyle(e);
      if (!style.display.startsWith('inline') || ['fixed', 'absolute'].includes(style.position)) return e;
    }
    return el;
  };
  // New text, grouped by its block (a <p>, <div>, <li>, a toast): one message each.
  const blocks = new Map();
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(), n = 0; node && n < 5000; node = walker.nextNode(), n++) {
    const text = clean(node.data);
    const parent = node.parentElement;
    if (!text || !parent || parent.closest('script, style, noscript, template, select, option, textarea')) continue;
    if (!parent.checkVisibility()) continue;
    const again = touched && touched.has(parent) && (failure(text) || asking(text));
    if (shownBefore.has(text) && !again) continue;
    const block = blockOf(parent);
    if (!blocks.has(block)) blocks.set(block, { parts: [], node });
    blocks.get(block).parts.push(text);
  }
  if (!blocks.size) return result;
  const alive = fields.map((f) => (f && f.isConnected ? f : null));
  const form = (alive.find((f) => f) || {}).form || null;
  const wrapperOf = (field) => {
    const single = (el) => el && el.tagName !== 'FORM' && el !== document.body && el.querySelectorAll(CONTROLS).length <= 1;
    let wrapper = single(field.parentElement) ? field.parentElement : null;
    while (wrapper && single(wrapper.parentElement)) wrapper = wrapper.parentElement;
    return wrapper;
  };
  const wrappers = alive.map((f) => (f ? wrapperOf(f) : null));
  const scope = form || document.body;
  const outside = [];
  for (const [block, { parts, node }] of blocks) {
    const message = clean(parts.join(' '));
    if (notVerdict(message)) continue;
    let owner = wrappers.findIndex((w) => w && w.contains(block));
    // A toast or banner (a layer of its own) is near no field, and outside a form-less page's form.
    const layer = ['fixed', 'absolute'].includes(getComputedStyle(block).position);
    const inForm = scope.contains(block) && !(layer && !form);
    if (owner < 0 && inForm && !layer && !block.closest('ul, ol, table')) owner = alive.indexOf(nearestControl(scope, node));
    if (owner >= 0) result.fields[owner].push(message);
    else if (inForm) {
      if (failure(message) || asking(message)) result.form.push(message);
    } else if (failure(message) || asking(message)) outside.push(message);
  }
  // Outside the form: what fails outright or names a field, and what stands beside it.
  if (outside.some((message) => failure(message) || named(message))) result.form.push(...outside);
  return result;

  // The control closest to a text node in page order within `scope` (fewest visible texts
  // between; the one before it on a tie), walking out from the node each way until one is
  // found: what lies between, not the whole scope (a form-less page's is the body). Undefined
  // when none is within 5000 nodes either way.
  function nearestControl(scope, node) {
    const walker = document.createTreeWalker(scope, NodeFilter.SHOW_TEXT | NodeFilter.SHOW_ELEMENT);
    const scan = (step) => {
      walker.currentNode = node;
      let gap = 0;
      for (let n = step(), seen = 0; n && seen < 5000; n = step(), seen++) {
        if (n.nodeType === 1) {
          if (n.matches(CONTROLS) && n.checkVisibility()) return { control: n, gap };
        } else if (clean(n.data) && n.parentElement.checkVisibility()) gap++;
      }
      return null;
    };
    const before = scan(() => walker.previousNode());
    const after = scan(() => walker.nextNode());
    return (!before || (after && after.gap < before.gap) ? after : before)?.control;
  }
}
