"""The browser agent: a Playwright-driven Chromium, its page model, actions and policy harness."""
