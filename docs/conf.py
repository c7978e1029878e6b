"""The card_envs documentation site (Sphinx, the furo theme, MyST Markdown and MyST-NB).

Build:  python -m sphinx -W --keep-going docs docs/_build/html
Serve:  python -m http.server --directory docs/_build/html 8000

The environment pages (``environments/``) and the results pages (``results/``) are generated
at the start of every build from the code and the recorded JSON (``docs/_ext/generate.py``), so
they cannot drift from what the library does and what was measured.
"""

from __future__ import annotations

import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS.parent))  # the repository: card_envs, agents, training
sys.path.insert(0, str(DOCS / "_ext"))

import card_envs  # noqa: E402

project = "card_envs"
author = "the card_envs developers"
copyright = "2026, the card_envs developers"  # noqa: A001
release = card_envs.__version__ if hasattr(card_envs, "__version__") else "0.1"

extensions = [
    "myst_nb",  # MyST Markdown pages and the notebooks (rendered with their saved outputs)
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.viewcode",
    "generate",  # docs/_ext/generate.py: the environment and results pages
]
source_suffix = {".md": "myst-nb", ".ipynb": "myst-nb"}
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3
nb_execution_mode = "off"  # the notebooks run in the test suite (tests/notebooks), at their small budget
exclude_patterns = ["_build", "README.md", "**/.ipynb_checkpoints", "results/speed_notes.md"]
html_theme = "furo"
html_title = "card_envs"
html_static_path = ["_static"]
# tables and code blocks that fit a 1280-pixel page: long code lines wrap, wide tables wrap their
# cells (and scroll inside their own box only when a cell cannot wrap)
html_css_files = ["card_envs.css"]
autodoc_member_order = "bysource"
# the build imports the library alone: what the optional extras add (the batched engine's numba,
# OpenSpiel, the web server) is mocked, so the `docs` extra needs only Sphinx and its theme
autodoc_mock_imports = ["numba", "pyspiel", "open_spiel", "starlette", "uvicorn", "torch", "stable_baselines3",
                        "sb3_contrib"]
autodoc_typehints = "description"
autodoc_default_options = {"members": True, "undoc-members": False}
# the docstrings are written for help() and the rendered pages both: cross-references to names
# Sphinx cannot resolve are shown as code, not reported
nitpicky = False
suppress_warnings = ["myst.header", "misc.highlighting_failure"]


def _protocol_signature(app, what, name, obj, options, signature, return_annotation):
    """A ``typing.Protocol`` is documented by its methods: its class signature is typing's
    ``(*args, **kwargs)``, which says nothing, so none is shown."""
    if what == "class" and getattr(obj, "_is_protocol", False):
        return "", None
    return None


def setup(app):
    app.connect("autodoc-process-signature", _protocol_signature)
