// One call for what the snapshot does not say: how many elements the page has (large pages get
// another view), the accessible name of an open modal dialog (a <dialog> opened with showModal()
// or a visible aria-modal element), and, on pages up to `limit` elements, the texts a person
// cannot see although the accessibility tree carries them (off-screen, 1px "sr-only" boxes,
// zero opacity or font size): the view leaves them out, as hidden instructions hide there too.
// Also notes on comboboxes and date fields, the values of password fields (to redact), the title and the
// scroll position, saving calls of their own. A page over `limit` elements gets the viewport-first
// view, which uses only its size, password values, title and scroll position: nothing else is read.
// Without a modal dialog, an overlay covering the page is told by its texts and number of
// controls, so the view can show it first: a fixed or absolute layer on top of (nearly) all the
// page's content in the viewport. The browser is asked what is on top at a grid of points over
// the page's content (the boxes of the body's children) within the viewport, so a banner over a
// short page counts, while a sticky header or a strip along the bottom over one button does not,
// nor an app drawn in one window-sized box (the content is its own). Points, not elements: the
// cost follows the viewport, not the page.
([limit]) => {
  const coveringOverlay = () => {
    const [w, h] = [innerWidth, innerHeight];
    if (!document.body || w < 100 || h < 100) return null;
    const layers = new Map();  // element -> the outermost fixed or absolute element around it
    const layerOf = (hit) => {  // each element's style read once, however many points lie in it
      const chain = [];
      let e = hit;
      for (; e && e !== document.body && e !== document.documentElement && !layers.has(e); e = e.parentElement) {
        chain.push(e);
      }
      let layer = e && layers.has(e) ? layers.get(e) : null;
      for (const el of chain.reverse()) {
        if (!layer && ['fixed', 'absolute'].includes(getComputedStyle(el).position)) layer = el;
        layers.set(el, layer);
      }
      return layer;
    };
    // The page's content: the boxes of the body's children but fixed layers (of a lone wrapper's
    // children, through wrappers); the box of one that holds very many.
    const inFlow = (e) => !['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE'].includes(e.tagName)
      && getComputedStyle(e).position !== 'fixed';
    const partsOf = (e) => (e.children.length > 100 ? [e] : Array.from(e.children).filter(inFlow));
    let parts = partsOf(document.body);
    for (let depth = 0; parts.length === 1 && depth < 5; depth++) {
      const inner = partsOf(parts[0]);
      if (!inner.length || inner[0] === parts[0]) break;
      parts = inner;
    }
    const boxes = parts.map((e) => [e, e.getBoundingClientRect()])
      .filter(([, b]) => b.width > 0 && b.height > 0 && b.right > 0 && b.bottom > 0 && b.left < w && b.top < h);
    if (!boxes.length) return null;
    // A grid over that box within the viewport, rows about a line of text apart on a short page.
    const left = Math.max(0, Math.min(...boxes.map(([, b]) => b.left)));
    const top = Math.max(0, Math.min(...boxes.map(([, b]) => b.top)));
    const right = Math.min(w, Math.max(...boxes.map(([, b]) => b.right)));
    const bottom = Math.min(h, Math.max(...boxes.map(([, b]) => b.bottom)));
    const columns = Math.min(8, Math.max(3, Math.round((right - left) / 160)));
    const rows = Math.min(12, Math.max(3, Math.ceil((bottom - top) / 20)));
    // Each point within the content box: the layer on top there (null: none) and the parts of
    // the page it lies in.
    const points = [];
    let plain = 0;  // points with no layer on top
    for (let row = 0; row < rows; row++) {
      for (let column = 0; column < columns; column++) {
        const x = left + ((column + 0.5) * (right - left)) / columns;
        const y = top + ((row + 0.5) * (bottom - top)) / rows;
        const within = boxes.filter(([, b]) => x >= b.left && x < b.right && y >= b.top && y < b.bottom)
          .map(([e]) => e);
        if (!within.length) continue;
        const hit = document.elementFromPoint(x, y);
        const layer = hit && layerOf(hit);
        points.push({ layer, within });
        if (!layer) plain++;
        // A layer must cover 4 times as many points as lie plain: past a fifth, none can.
        if (plain * 5 > rows * columns) return null;
      }
    }
    // A layer covers a point where a part of the page that is not its own lies beneath it.
    const outside = (layer, within) => within.some((e) => !layer.contains(e));
    const under = new Map();  // layer -> how many points it covers
    for (const { layer, within } of points) {
      if (layer && outside(layer, within)) under.set(layer, (under.get(layer) || 0) + 1);
    }
    let first = null;
    for (const [layer, covered] of under) {  // against the content that is not its own
      const rest = points.filter(({ within }) => outside(layer, within)).length;
      if (covered >= 2 && covered >= 0.8 * rest) first = layer;
    }
    if (!first) return null;
    if (!first.innerText.trim()) {  // an empty shade: the box on top of it is the overlay
      const boxes = points.map(({ layer }) => layer)
        .filter((layer) => layer && layer !== first && layer.innerText.trim());
      if (boxes.length) first = boxes[boxes.length - 1];
    }
    const shown = (e) => {
      const box = e.getBoundingClientRect();
      return box.width > 1 && box.height > 1 && e.checkVisibility();
    };
    const texts = [];
    const walker = document.createTreeWalker(first, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node && texts.length < 6; node = walker.nextNode()) {
      const text = node.textContent.replace(/\s+/g, ' ').trim().slice(0, 60);
      if (text && node.parentElement?.checkVisibility()) texts.push(text);
    }
    const controls = Array.from(first.querySelectorAll(
      'a[href], button, input, select, textarea, [role], [tabindex], [onclick]')).filter(shown).length;
    return texts.length || controls ? { texts, controls } : null;
  };
  // Text the snapshot runs together across line breaks: inline text and plain inline elements
  // (a message <span>, the next field's <label>) between <br>s come out as one text ("...
  // address Password", "Opening hoursMon-Fri 9-5"). Each such run: its text as the snapshot
  // writes it -> its lines, so the view can keep them apart.
  const textBreaks = () => {
    const PLAIN = new Set(['SPAN', 'LABEL', 'B', 'I', 'EM', 'STRONG', 'SMALL', 'FONT', 'U', 'S',
      'SUB', 'SUP', 'ABBR', 'CODE', 'MARK', 'Q', 'CITE', 'TIME', 'BR']);
    const plainness = new Map();  // each element judged once (nested inline elements)
    const plain = (n) => {
      if (n.nodeType === 3) return true;
      if (n.nodeType !== 1) return false;
      if (!plainness.has(n)) {
        plainness.set(n, PLAIN.has(n.tagName) && !n.hasAttribute('role')
          && getComputedStyle(n).display.startsWith('inline') && Array.from(n.children).every(plain));
      }
      return plainness.get(n);
    };
    const flat = (text) => text.replace(/\s+/g, ' ').trim();
    const found = {};
    // Inline elements nested in each other, each with a <br>, are each a parent whose runs hold
    // the ones inside it: reading them all is quadratic in the nesting. The nodes read are
    // counted, and reading stops at ten per element of the page (past the first 20,000).
    let budget = Math.max(20000, 10 * count);
    const linesOf = (run) => {  // [the run's text, its lines]
      const lines = [''];
      let all = '';
      for (const node of run) {
        const walker = document.createTreeWalker(node, NodeFilter.SHOW_ALL);
        for (let n = walker.currentNode; n && budget > 0; n = walker.nextNode(), budget--) {
          if (n.nodeName === 'BR') lines.push('');
          else if (n.nodeType === 3) {
            lines[lines.length - 1] += n.data;
            all += n.data;
          }
        }
      }
      return [flat(all), lines.map(flat).filter(Boolean)];
    };
    const parents = new Set(Array.from(document.body.querySelectorAll('br')).slice(0, 500)
      .map((br) => br.parentElement));
    for (const parent of parents) {
      if (budget <= 0) break;
      let run = [];
      for (const child of [...parent.childNodes, null]) {
        if (child && plain(child)) { run.push(child); continue; }
        const [text, lines] = linesOf(run);
        if (lines.length > 1 && budget > 0) found[text] = lines;
        run = [];
      }
    }
    return found;
  };
  const count = document.getElementsByTagName('*').length;
  const passwords = Array.from(document.querySelectorAll('input[type=password]'))
    .map((e) => e.value).filter((v) => v);
  const read = { count, passwords, title: document.title, where: `${Math.round(scrollX)},${Math.round(scrollY)}` };
  if (count > limit) {
    return { ...read, modal: null, overlay: null, comboboxes: {}, typed: {}, hidden: [], breaks: {} };
  }
  const nameOf = (e) => {  // the accessible name, as far as these elements need it
    const labelled = (e.getAttribute('aria-labelledby') || '').split(/\s+/)
      .map((id) => document.getElementById(id)?.textContent?.trim() || '').filter(Boolean);
    const name = labelled.join(' ') || e.getAttribute('aria-label') || e.labels?.[0]?.textContent
      || e.getAttribute('title') || e.getAttribute('placeholder') || '';
    return name.replace(/\s+/g, ' ').trim();
  };
  // Comboboxes that are not selects, by name: can text be typed in, which list do they control.
  const comboboxes = {};
  for (const e of document.querySelectorAll('[role=combobox]:not(select), input[list]')) {
    if (!e.checkVisibility()) continue;
    const editable = (e.tagName === 'INPUT' && !e.readOnly && !e.disabled) || e.isContentEditable;
    const id = (e.getAttribute('aria-controls') || e.getAttribute('aria-owns') || '').split(/\s+/)[0];
    const list = id ? document.getElementById(id) : e.list || null;
    const label = list ? (nameOf(list) || list.id).replace(/"/g, "'") : '';
    const note = (editable ? '[editable]' : '[not editable]') + (label ? ` [controls "${label}"]` : '');
    const name = nameOf(e);
    comboboxes[name] = name in comboboxes ? null : note;  // two of one name: no note for either
  }
  const modals = Array.from(document.querySelectorAll('dialog, [aria-modal="true"]')).filter(
    (e) => (e.tagName === 'DIALOG' ? e.matches(':modal') : e.checkVisibility()));
  const modal = modals.length ? nameOf(modals[modals.length - 1]) : null;
  // Fields whose value has a fixed format the snapshot does not show, by name.
  const formats = { date: 'YYYY-MM-DD', time: 'HH:MM', month: 'YYYY-MM', week: 'YYYY-Www',
    'datetime-local': 'YYYY-MM-DDTHH:MM' };
  const typed = {};
  for (const e of document.querySelectorAll('input[type]')) {
    const format = formats[e.type];
    if (format && e.checkVisibility()) typed[nameOf(e)] = `[${e.type}: ${format}]`;
  }
  const hidden = new Set();
  if (document.body) {
    const width = document.documentElement.scrollWidth;
    const unseen = (e) => {
      if (!e.checkVisibility({ opacityProperty: true, visibilityProperty: true })) return true;
      const box = e.getBoundingClientRect();
      if (box.width <= 1 || box.height <= 1) {
        const contents = getComputedStyle(e).display === 'contents';  // no box of its own
        return contents && e.parentElement ? unseen(e.parentElement) : !contents;
      }
      if (box.right + scrollX <= 0 || box.bottom + scrollY <= 0 || box.left + scrollX >= width) return true;
      return getComputedStyle(e).fontSize === '0px';
    };
    const checked = new Map();  // parent -> whether its texts are unseen, judged once
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node && hidden.size < 300; node = walker.nextNode()) {
      const text = node.textContent.replace(/\s+/g, ' ').trim();
      const parent = node.parentElement;
      if (!text || !parent) continue;
      if (!checked.has(parent)) {
        const skipped = parent.closest('script, style, noscript, select, datalist');
        const hiddenHere = !skipped && unseen(parent);
        checked.set(parent, hiddenHere);
        // The parent's whole text once (not again for each of its texts: a hidden block of
        // many lines would be read once a line).
        if (hiddenHere) hidden.add((parent.innerText || text).replace(/\s+/g, ' ').trim().slice(0, 500));
      }
      if (checked.get(parent)) hidden.add(text.slice(0, 500));
    }
  }
  const overlay = modal === null ? coveringOverlay() : null;
  const breaks = document.body ? textBreaks() : {};
  return { ...read, modal, overlay, comboboxes, typed, hidden: Array.from(hidden), breaks };
}
