// What the page says about the submitted fields without any ARIA: the visible text that the
// submit brought (text not shown before it, or text the page wrote again that reads as an
// error), against what watch_errors.js kept. Text in a field's own wrapper (the largest
// ancestor holding no other control), or closer in document order to that field than to any
// other control, is the field's; text elsewhere (in the form, a list above it, a toast) is the
// form's, when it reads as an error. Returns {fields: [[message, ...] per field], form: [...]}.
(fields) => {
  const shownBefore = window.__outriderShown;
  const touched = window.__outriderTouched;
  const result = { fields: fields.map(() => []), form: [] };
  if (!shownBefore || !document.body) return result;
  const ERROR = /\b(error|invalid|required|must|please|cannot|can't|could not|couldn't|fail(ed|s)?|wrong|incorrect|not (valid|allowed|available|accepted|recogni[sz]ed|found|match)|too (short|long|weak|many|few)|already|at (least|most)|missing|mismatch|(do|does|did)(n't| not) match|taken|expired|denied|unable|enter|choose|select|provide)\b/i;
  const SUCCESS = /\b(thank|thanks|success|successful(ly)?|saved|sent|welcome|done|looks good|confirmed)\b|✓|✔/i;
  const CONTROLS = 'input:not([type=hidden]), select, textarea, button';
  const clean = (text) => text.replace(/\s+/g, ' ').trim();
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
    const again = touched && touched.has(parent) && ERROR.test(text);
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
  const controls = Array.from(scope.querySelectorAll(CONTROLS)).filter((c) => c.checkVisibility());
  // Document order of controls and text nodes in the form: how many texts lie between.
  const order = [];
  const all = document.createTreeWalker(scope, NodeFilter.SHOW_TEXT | NodeFilter.SHOW_ELEMENT);
  for (let node = all.nextNode(); node; node = all.nextNode()) {
    if (node.nodeType === 1 ? controls.includes(node) : clean(node.data) && node.parentElement.checkVisibility()) order.push(node);
  }
  const nearestControl = (node) => {
    const at = order.indexOf(node);
    if (at < 0) return null;
    const look = (step) => {
      for (let i = at + step, gap = 0; i >= 0 && i < order.length; i += step, gap++) {
        if (order[i].nodeType === 1) return { control: order[i], gap };
      }
      return null;
    };
    const before = look(-1);
    const after = look(1);
    if (!before) return after && after.control;
    if (!after) return before.control;
    return after.gap < before.gap ? after.control : before.control;
  };
  for (const [block, { parts, node }] of blocks) {
    const message = clean(parts.join(' '));
    if (SUCCESS.test(message) && !ERROR.test(message)) continue;
    let owner = wrappers.findIndex((w) => w && w.contains(block));
    const listed = block.closest('ul, ol, table');
    if (owner < 0 && !listed && scope.contains(block)) owner = alive.indexOf(nearestControl(node));
    if (owner >= 0) result.fields[owner].push(message);
    else if (ERROR.test(message)) result.form.push(message);
  }
  return result;
}
