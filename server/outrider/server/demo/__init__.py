"""`outrider demo`: a bundled site (a shop with a member login), a research corpus, and a scripted
model, served on loopback with a real Outrider server, so a newcomer can try every part without a
model API key. The files live beside this module and ship in the package."""

from pathlib import Path

DEMO_DIR = Path(__file__).resolve().parent
WEB_DIR = DEMO_DIR / "web"  # the site; /docs/ is the research corpus
SCENARIO = DEMO_DIR / "scenarios" / "demo.yaml"  # the scripted model's turns
