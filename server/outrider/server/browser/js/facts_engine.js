// A Playwright selector engine (facts_feed.py registers it) that makes the page facts ride on
// the snapshot's own call to the page: Playwright runs a locator's engines in the same
// evaluation as its snapshot, in its isolated world. Given page_facts.js, this returns an
// engine whose selector "<limit>,<token>,<known>" reads the facts and yields what a plain page
// snapshot starts from. The facts are posted on the console (an event, not a call), tagged with
// the read's token, unless they are those this world last posted and the reader says it has
// them (`known` is that post's token): posting costs about as much as a call. A new document
// has a new world, which posts. On a page over `limit` elements it throws after posting: no
// snapshot is taken of a page that gets the viewport-first view.
(pageFacts) => {
  let posted = null;  // { token, json } of this world's last post
  return {
    queryAll(root, selector) {
      const [limit, token, known] = selector.split(',');
      const facts = pageFacts([Number(limit)]);
      // Typed passwords never go on a console (its buffers outlive the read): the reader reads
      // them by a call of their own.
      const withheld = facts.passwords.some(Boolean) ? { ...facts, passwords: null } : facts;
      const json = JSON.stringify(withheld);
      if (posted?.token !== known || posted.json !== json) {
        console.debug(`outrider-facts ${token} ${json}`);
        posted = { token, json };
      }
      if (facts.count > Number(limit)) throw new Error('outrider-facts: a large page');
      const top = document.querySelector('body, frameset');
      return top ? [top] : [];
    },
  };
}
