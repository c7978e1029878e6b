"""The generated pages of the documentation site: one page per environment and the results pages.

Run at the start of every Sphinx build (``builder-inited``), and importable by the tests:

* ``environments/<game>.md``: the environment's docstring (``help(card_envs.<game>_v0)``: its
  properties table with the spaces at the default table, then its sections), the animated picture
  of a game (``docs/pictures/<game>.gif``), links to the complete rules, the game's leaderboard
  row, its shipped policy and how to play it, and the notes on the batched engine and sampled
  worlds last: every page with :data:`SECTIONS` in order, for every registered game (:data:`GAMES`,
  read from ``card_envs.REGISTERED``); a game without a committed animation gets one drawn at the
  build (``environments/<game>.gif``), and a game without its rules page (``rules/<game>.md``) is
  an error naming the file to write;
* ``environments/index.md`` and ``docs/rules/index.md``: the environments and their rules pages;
* ``results/policies.md``: a model card per shipped policy, from ``agents/pretrained/<game>.json``;
* ``results/baselines.md``: the heuristic against random, from ``benchmarks/baselines_results.json``;
* ``results/search.md``: the search agents' strength and cost, from ``benchmarks/search_results.json``;
* ``results/leaderboard.md``: the library's agents under the benchmark protocol, from
  ``benchmarks/scorecards/*.json`` and ``benchmarks/exploitability.json`` (``training.leaderboard``);
* ``results/openspiel.md``: the OpenSpiel adapter's speed and an NFSP run, from
  ``benchmarks/openspiel_speed.json`` and ``benchmarks/openspiel_nfsp_results.json``;
* ``results/speed.md``: the speed tables, from ``benchmarks/*_results.json`` with their machine;
* ``notebooks/*.ipynb``: the notebooks of ``notebooks/``, rendered with their saved outputs; a
  notebook whose outputs were executed against another checkout than this one (other shipped
  policies, heuristics, score cards or library version: ``notebooks/build.py`` defines the
  fingerprint), or whose cells are not ``notebooks/build.py``'s, is a warning of the build (an
  error under ``-W``) that names the command regenerating it.

Nothing here is typed by hand into a page: change the code or re-run the measurement.

The tables of committed pages that list every registered game are generated here too, between
their marker lines: the README's games table (:func:`games_table`, one row a game from its env
module's ``PLAYERS`` and ``SUMMARY``) and the search guide's table of defaults
(``agents.search_defaults.markdown``). ``python docs/_ext/generate.py --tables`` rewrites both;
tests hold them current.
"""

from __future__ import annotations

import ast
import json
import re
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent.parent
ROOT = DOCS.parent
if str(ROOT) not in sys.path:  # the repository's card_envs, agents and training, also run as a script
    sys.path.insert(0, str(ROOT))

import card_envs  # noqa: E402

#: the sections of every environment page, in this order: the basics in the order Gymnasium's and
#: PettingZoo's pages have them, then where to go next, then the tables few readers need
SECTIONS = (
    "Description",
    "Actions",
    "Observation",
    "Rewards",
    "Starting state",
    "Episode end",
    "Arguments",
    "Version history",
    "See also",
    "State (privileged)",
    "Batched engine and sampled worlds",
)
#: the sections the generator writes (the others are the environment's docstring's)
GENERATED = ("See also", "Batched engine and sampled worlds")

#: every registered game, in the registry's order
GAMES = tuple(card_envs.REGISTERED)


def _sections(doc: str) -> tuple[str, list[tuple[str, str]]]:
    """A docstring's head (before the first ``## ``) and its ``## `` sections in order."""
    head, sections, title, body = [], [], None, []
    for line in doc.strip("\n").splitlines():
        if line.startswith("## "):
            if title is not None:
                sections.append((title, "\n".join(body).strip("\n")))
            title, body = line[3:].strip(), []
        elif title is None:
            head.append(line)
        else:
            body.append(line)
    if title is not None:
        sections.append((title, "\n".join(body).strip("\n")))
    return "\n".join(head).strip("\n"), sections


def _see_also(game: str) -> str:
    """Where to go from an environment's page: its rules, results, policy, and how to play it."""
    from card_envs.cli import format_options

    if not (DOCS / "rules" / f"{game}.md").exists():
        raise ValueError(f"{game} has no rules page: write docs/rules/{game}.md (the game's complete rules in the "
                         "project's own words; python -m card_envs.scaffold writes one with a new game)")
    from agents.ppo import shipped

    name = f"{game}_v0"
    anchor = name.replace("_", "-")  # the heading `name` as an anchor
    table = format_options(card_envs.ENVIRONMENTS[name].BENCHMARK_CONFIG)
    pinned = (f", each pinned by a test named after it (`tests/games/test_{game}.py`)"
              if (ROOT / "tests" / "games" / f"test_{game}.py").exists() else "")
    policy = (f"[its model card](../results/policies.md#{anchor}), how it was trained and how it plays against "
              "the baselines; `agents.load(\"ppo\")` plays it" if name in shipped() else
              f"none yet: train one (`python -m training.train {game}`) and ship it as `agents/pretrained/{name}.zip`")
    return f"""- **The complete rules**: [{game} rules](../rules/{game}.md), every rule of the game in full{pinned}.
- **How the library's agents play it**: [its leaderboard row](../results/leaderboard.md#{anchor}) (random,
  the heuristic, the shipped PPO policy and the search agents under the benchmark protocol, at the
  benchmark table `{table}`).
- **The shipped policy**: {policy}.
- **Play it yourself**: `python -m agents.play {game}` in the terminal, or `python -m card_envs.web` in
  the browser ([web table](../guides/web.md)), against the heuristic or any other agent, at the benchmark
  table unless you change it (`--config KEY=VALUE`)."""


def _markdown(rst: str) -> str:
    """A docstring's reStructuredText inline markup as Markdown: ``:mod:`x``` and ````x```` as `x`."""
    text = re.sub(r":(?:mod|func|class|meth|data|attr|exc):`~?([^`]+)`", r"`\1`", rst)
    return re.sub(r"``([^`]+)``", r"`\1`", text)


def _engine_and_worlds(game: str) -> str:
    module = card_envs.ENVIRONMENTS[f"{game}_v0"]
    worlds = __import__(f"card_envs.{game}.worlds", fromlist=["sample_world"])
    doc = (worlds.__doc__ or "").strip()
    first = _markdown(doc.split("\n\n")[0].replace("\n", " ")) if doc else ""
    parallel = "also `parallel_env()`, " if hasattr(module, "parallel_env") else ""
    return f"""`{game}_v0.vector_env(num_envs=1024, **options)` plays many games of this configuration at once
in compiled kernels (`card_envs/{game}/kernels.py`; the `vector` extra), {parallel}with exactly the
options of `env()`: the same state and action give byte-identical observations, masks, rewards and
results (the differential tests play both engines side by side). See [the batched engine](../guides/batched_engine.md).

`{game}_v0.sample_world(observation, rng, **options)` draws a full rules state consistent with one
player's observation alone, its hidden cards from the exact posterior; search agents plan in such
worlds ([search agents](../guides/search.md)). {first}"""


#: the longest first paragraph of an Observation section shown whole on the page (characters)
FIRST_PARAGRAPH = 500


def _folded_observation(observation: str) -> str:
    """The Observation section as the page shows it: its first paragraph, then two folds (HTML
    ``<details>``, one click away) for the layout table (its lead line the summary) and for the
    rest of the text, so that the page's basics stay on its first screens. ``help()`` keeps it all
    in the open."""
    blocks = [b for b in observation.split("\n\n") if b.strip()]
    table = next((i for i, b in enumerate(blocks) if b.startswith("| Segment |")), None)
    if table is None:
        return observation
    lead = table - 1 if table >= 1 and blocks[table - 1].startswith("The layout at the default table") else None
    summary = blocks[lead].rstrip(":") if lead is not None else "The layout, segment by segment"
    segments = blocks[table].count("\n") - 1
    rest = [b for i, b in enumerate(blocks[1:], 1) if i not in (table, lead)]
    first = blocks[0]
    if len(first) > FIRST_PARAGRAPH:  # a long first paragraph: its first sentence in the open, the rest folded
        cut = first.find(". ") + 1
        if 0 < cut < len(first):
            first, more = first[:cut], first[cut:].strip()
            rest.insert(0, more)
    out = [first, "<details>", f"<summary>{_inline_html(summary)} ({segments} segments): show</summary>",
           blocks[table], "</details>"]
    if rest:
        out += ["<details>", "<summary>More on the observation: what each part holds and why, decoding it</summary>",
                *rest, "</details>"]
    return "\n\n".join(out)


def _folded_mask(actions: str) -> str:
    """The Actions section with its Action mask sub-section's first sentence in the open and the
    rest folded (as :func:`_folded_observation` does)."""
    head, sep, mask = actions.partition("### Action mask\n\n")
    if not sep:
        return actions
    mask, sub, after = mask.partition("\n### ")
    cut = mask.find(". ") + 1
    if not 0 < cut < len(mask.strip()):
        return actions
    folded = (f"{head}{sep}{mask[:cut]}\n\n<details>\n<summary>When each action is legal: show</summary>\n\n"
              f"{mask[cut:].strip()}\n\n</details>\n")
    return folded + (f"\n### {after}" if sub else "")


def _inline_html(text: str) -> str:
    """Markdown's inline code as HTML (a ``<summary>`` is raw HTML: MyST leaves it alone)."""
    import html

    return re.sub(r"`([^`]*)`", lambda m: f"<code>{m.group(1)}</code>", html.escape(text, quote=False))


def environment_page(game: str) -> str:
    """The Markdown page of one environment (see the module docstring): the docstring's title and
    properties table, the animated picture, then :data:`SECTIONS` in order."""
    import card_envs.contract

    module = card_envs.ENVIRONMENTS[f"{game}_v0"]
    head, sections = _sections(module.__doc__ or "")
    found = dict(sections)
    wanted = [s for s in SECTIONS if s not in GENERATED]
    missing = [s for s in wanted if s not in found]
    if missing:
        raise ValueError(f"{game}_v0's docstring lacks the sections {missing}")
    if [t for t, _ in sections] != wanted:
        raise ValueError(f"{game}_v0's docstring has the sections {[t for t, _ in sections]}; an environment page has "
                         f"{wanted} in this order (a game's own topics are ### sub-sections of them)")
    found["See also"] = _see_also(game)
    found["Batched engine and sampled worlds"] = _engine_and_worlds(game)
    declared = getattr(card_envs.contract.part(game, "rules"), "STATE", None)
    if declared is not None:  # the rules engine's state, as search agents and the batched engine see it
        found["State (privileged)"] += (
            "\n\n### The rules engine's state\n\nThe fields of the rules state (what `sample_world` returns and "
            "search agents simulate), how each copies, and where the batched engine keeps it "
            "(declared once in `card_envs." + game + ".rules.STATE`):\n\n" + declared.table())
    found["Observation"] = _folded_observation(found["Observation"])
    found["Actions"] = _folded_mask(found["Actions"])
    head_lines = head.splitlines()
    title = head_lines[0] if head_lines and head_lines[0].startswith("# ") else f"# `{game}_v0`"
    properties = "\n".join(head_lines[1:] if head_lines and head_lines[0].startswith("# ") else head_lines).strip("\n")
    out = [title, "", properties, "",
           f"```{{image}} {picture(game)}",
           f":alt: {game}: the first moves of a game, random legal moves at the benchmark table",
           ":class: env-animation", "```", ""]
    for t in SECTIONS:
        out += [f"## {t}", "", found[t], ""]
    return "\n".join(out).rstrip() + "\n"


def picture(game: str) -> str:
    """The environment page's link to the game's animation: the committed ``pictures/<game>.gif``,
    or the one :func:`write_all` draws beside the page for a game without one."""
    return f"../pictures/{game}.gif" if (DOCS / "pictures" / f"{game}.gif").exists() else f"{game}.gif"


def environments_index() -> str:
    rows = ["| Environment | The game |", "|---|---|"]
    for game in GAMES:
        module = card_envs.ENVIRONMENTS[f"{game}_v0"]
        title = (module.__doc__ or "").strip().splitlines()[0].lstrip("# ").split(" — ")[0]
        rows.append(f"| [`{game}_v0`]({game}.md) | {title} |")
    toc = "\n".join(GAMES)
    parallel = [f"`{g}_v0`" for g in GAMES if hasattr(card_envs.ENVIRONMENTS[f"{g}_v0"], "parallel_env")]
    also = f" ({', '.join(parallel)} also as parallel environments)" if parallel else ""
    return f"""# Environments

{len(GAMES)} PettingZoo AEC environments{also}, each with its batched twin (`vector_env`) and its
world sampler (`sample_world`). Every page has the same sections, in the order Gymnasium's and PettingZoo's pages have them: a table of the spaces and
interfaces, a game in motion, then {", ".join(SECTIONS)}.

{chr(10).join(rows)}

```{{toctree}}
:hidden:
{toc}
```
"""


def rules_index() -> str:
    """The rules pages, one a registered game (``rules/<game>.md``)."""
    toc = "\n".join(GAMES)
    return f"""# The rules

The complete rules of each game, in this project's own words: what the code implements, and what
the tests pin rule by rule (`tests/games/`). Each environment's page repeats them beside its
actions, observation and options.

```{{toctree}}
:maxdepth: 1

{toc}
```
"""


# ------------------------------------------------------------------------------ the README
README = ROOT / "README.md"
SEARCH_GUIDE = DOCS / "guides" / "search.md"
GAMES_START, GAMES_END = "<!-- games: generated by python docs/_ext/generate.py --tables -->", "<!-- games end -->"


def games_table() -> str:
    """The README's games table: each registered game's players and one line (its env module's
    ``PLAYERS`` and ``SUMMARY``), linking its rules page."""
    import card_envs.contract

    rows = ["| Environment | Players | The game |", "|---|---|---|"]
    for game in GAMES:
        env = card_envs.contract.part(game, "env")
        rows.append(f"| [`{game}_v0`](docs/rules/{game}.md) | {env.PLAYERS} | {env.SUMMARY} |")
    return "\n".join(rows) + "\n"


def generated_blocks(text: str) -> list[tuple[str, str]]:
    """Each generated block of a page, (start marker, end marker): the README's games table, its
    leaderboard and its scale-out table."""
    from training import leaderboard

    blocks = [(GAMES_START, GAMES_END), (leaderboard.START, leaderboard.END),
              ("<!-- scale-out: python benchmarks/bench_scale_out.py --table -->", "<!-- scale-out end -->")]
    return [b for b in blocks if b[0] in text]


def rewrite(path: Path, start: str, end: str, table: str) -> bool:
    """Put ``table`` between the lines ``start`` and ``end`` of the page at ``path``; True if the
    page changed. A page without the two lines is a ValueError saying what to add."""
    text = path.read_text()
    if start not in text or end not in text:
        raise ValueError(f"{path} has no generated table: add the lines {start!r} and {end!r}")
    head, rest = text.split(start, 1)
    new = head + start + "\n" + table + end + rest.split(end, 1)[1]
    if new != text:
        path.write_text(new)
    return new != text


def update_tables() -> list[Path]:
    """Rewrite the committed pages' generated tables (the README's games table, the search
    guide's table of defaults); the pages that changed."""
    from agents import search_defaults

    tables = [(README, GAMES_START, GAMES_END, games_table()),
              (SEARCH_GUIDE, search_defaults.START, search_defaults.END, search_defaults.markdown())]
    return [path for path, start, end, table in tables if rewrite(path, start, end, table)]


# ------------------------------------------------------------------------------- results
def _literal(value):
    if isinstance(value, str):
        try:
            return ast.literal_eval(value)
        except (ValueError, SyntaxError):
            return value
    return value


def _interval(row: dict, mean: str, low: str, high: str, signed: bool = True) -> str:
    def f(x):
        return f"{float(x):+.3f}" if signed else f"{float(x):.3f}"
    if row.get(mean) is None:
        return ""
    if row.get(low) is None or row.get(high) is None:
        return f(row[mean])
    return f"{f(row[mean])} [{f(row[low])}, {f(row[high])}]"


def policies_page() -> str:
    """A model card per shipped policy, from ``agents/pretrained/<game>.json``."""
    out = ["# Shipped policies", "",
           "`agents.load(\"ppo\")` plays the policy shipped for the game (`agents/pretrained/<game>_v0.zip`). "
           "Each card below is generated from the policy's record (`agents/pretrained/<game>_v0.json`): the "
           "command that trained it, its configuration, and its final evaluation against the baselines "
           "(mean rank reward with 95% intervals; see [evaluation](../guides/evaluation.md)).", "",
           "![learning curves](../../agents/pretrained/curves.png)", ""]
    for game in GAMES:
        path = ROOT / "agents" / "pretrained" / f"{game}_v0.json"
        if not path.exists():
            continue
        meta = json.loads(path.read_text())
        final = _literal(meta.get("final_evaluation")) or {}
        config = _literal(meta.get("config")) or {}
        out += [f"## `{game}_v0`", "", "Trained with:", "", "```console", f"$ {meta.get('command', '?')}", "```", ""]
        if meta.get("note"):
            out += [meta["note"], ""]
        if isinstance(config, dict):
            out += [f"- table: `{config.get('env_config')}`; training env: `{config.get('train_env_config')}`",
                    f"- opponents: `{config.get('opponents')}`, weights `{config.get('opponent_weights')}`"]
        if isinstance(final, dict):
            steps = final.get("num_timesteps")
            out += [f"- steps: {steps:,}" if isinstance(steps, int) else f"- steps: {steps}",
                    f"- training time this run: {final.get('train_seconds_this_run')} s "
                    f"({final.get('steps_per_second')} steps/s)"]
            ev = final.get("evaluation") or []
            if ev:
                out += ["", "| opponent | games | mean reward (95% CI) | margin over it (95% CI) | sole first (95% CI) | shared first |",
                        "|---|---:|---:|---:|---:|---:|"]
                for row in ev:
                    out.append(f"| {row.get('opponent')} | {row.get('games', '')} | "
                               f"{_interval(row, 'mean_reward', 'reward_low', 'reward_high')} | "
                               f"{_interval(row, 'margin', 'margin_low', 'margin_high')} | "
                               f"{_interval(row, 'win_rate', 'win_rate_low', 'win_rate_high', signed=False)} | "
                               f"{row.get('shared_first_rate', '')} |")
                out += ["", f"Seating: {ev[0].get('seating', '')}; duplicate deals: {ev[0].get('duplicate')}."]
        out += ["", f"Learning curve: `agents/pretrained/{meta.get('learning_curve', game + '_v0.eval.csv')}`.", ""]
    return "\n".join(out).rstrip() + "\n"


def _recorded(name: str, rerun: str) -> tuple[dict | None, str]:
    """A recorded measurement (``benchmarks/<name>``) and the line saying how and where it was
    measured, or None and the line saying how to record it."""
    path = ROOT / "benchmarks" / name
    if not path.exists():
        return None, f"No measurement is recorded yet: run `{rerun}`."
    d = json.loads(path.read_text())
    return d, f"Measured with `{d.get('command')}` on {d.get('machine')}, {d.get('date')}."


def baselines_page() -> str:
    """The heuristic against random in every game, from ``benchmarks/baselines_results.json``."""
    out = ["# Baselines", "",
           "Generated from the recorded measurement (`benchmarks/baselines_results.json`); nothing here is typed "
           "by hand. The seating, rewards and intervals are those of [evaluation](../guides/evaluation.md): the "
           "agent in one seat against copies of the other in all the others, seats rotated, on duplicate deals; "
           "the rank reward, +1 first to −1 last; 95% intervals. Each shipped PPO policy's evaluation against "
           "random and the heuristic is on its card in [shipped policies](policies.md).", ""]
    d, measured = _recorded("baselines_results.json", "python -m training.baselines --json benchmarks/baselines_results.json")
    if d is None:
        return "\n".join(out + [measured]) + "\n"
    rows = d.get("rows", [])
    agent = rows[0]["agent"] if rows else "agent"
    against = rows[0]["against"] if rows else "other"
    out += [measured, "",
            f"| game | configuration | {agent} mean reward (95% CI) | {against} mean reward | margin (95% CI) | "
            f"{agent} sole first (95% CI) | shared first | games |",
            "|---|---|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        a, b, p = r["agent_summary"], r["against_summary"], r["pair"]
        out.append(f"| `{r['game']}` | `{r['config']}` | {_interval(a, 'mean_reward', 'reward_low', 'reward_high')} | "
                   f"{float(b['mean_reward']):+.3f} | **{_interval(p, 'margin', 'margin_low', 'margin_high')}** | "
                   f"{_interval(a, 'win_rate', 'win_rate_low', 'win_rate_high', signed=False)} | "
                   f"{float(a['shared_first_rate']):.3f} | {r['games']} |")
    out += ["", "To measure it again (about 10 minutes on a 2-core machine at 2,000 games a game):", "",
            "```console", "$ python -m training.baselines --json benchmarks/baselines_results.json",
            "$ python -m training.baselines --pretrained     # the shipped policies' recorded evaluations as one table",
            "```"]
    return "\n".join(out).rstrip() + "\n"


def search_page() -> str:
    """The search agents' strength and cost, from ``benchmarks/search_results.json``."""
    out = ["# Search strength", "",
           "PIMC and ISMCTS against the heuristic and random, generated from the recorded measurement "
           "(`benchmarks/search_results.json`): the search agent in one seat against copies of the opponent, "
           "seats rotated, duplicate deals; mean rank reward with its 95% interval; milliseconds per searched "
           "decision, worlds or iterations per decision and simulated steps per second. "
           "See [search agents](../guides/search.md).", ""]
    d, measured = _recorded("search_results.json", "python -m benchmarks.bench_search --out benchmarks/search_results.md")
    if d is None:
        return "\n".join(out + [measured]) + "\n"
    rows = d["rows"]
    out += [measured + " Few games give wide intervals: this page says how strong the search agents are at that "
            "budget, within them." + (f" {d['note']}" if d.get("note") else ""), ""]
    out += ["| game | agent | opponent | games | mean reward (95% CI) | ms / decision | worlds or iterations / decision "
            "| simulated steps/s |", "|---|---|---|---:|---:|---:|---:|---:|"]
    for r in rows:
        out.append(f"| `{r['game']}` | `{r['agent']}` | {r['opponent']} | {r['games']} | "
                   f"{float(r['mean_reward']):+.3f} [{float(r['low']):+.3f}, {float(r['high']):+.3f}] | "
                   f"{float(r['ms_per_decision']):.1f} | {float(r['samples_per_decision']):.0f} | "
                   f"{float(r['steps_per_s']):,.0f} |")
    return "\n".join(out).rstrip() + "\n"


def leaderboard_page() -> str:
    """The library's agents under the benchmark protocol (``training.leaderboard``, as the README)."""
    import sys

    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from training import leaderboard

    return "\n".join(["# Leaderboard", "",
                      "Generated from the committed score cards (`benchmarks/scorecards/`) and exploitability rows "
                      "(`benchmarks/exploitability.json`); nothing here is typed by hand. How the numbers are made, "
                      "and what they mean: [the benchmark protocol](../guides/benchmark.md).", "",
                      leaderboard.markdown()]).rstrip() + "\n"


def openspiel_page() -> str:
    """The OpenSpiel adapter's speed and an OpenSpiel learner's result, from the recorded JSON."""
    out = ["# OpenSpiel", "",
           "Generated from the recorded measurements; nothing here is typed by hand. How the adapter works, and "
           "the code: [OpenSpiel](../guides/openspiel.md).", ""]
    speed, measured = _recorded("openspiel_speed.json", "python -m benchmarks.bench_openspiel --out "
                                "benchmarks/openspiel_speed.json")
    out += ["## Random play: the adapter beside the env and the batched engine", "", measured]
    if speed is not None:
        out += [speed.get("note", ""), "",
                "| game | table | OpenSpiel adapter | `env()` | `vector_env` (256 games) |", "|---|---|---:|---:|---:|"]
        for r in speed["rows"]:
            out.append(f"| `{r['game']}` | `{r['table']}` | {r['openspiel']:,.0f} | {r['env']:,.0f} | "
                       f"{r['vector_env']:,.0f} |")
        out += ["", "Players' decisions per second of random legal play, one thread."]
    bots, measured = _recorded("openspiel_ismcts_results.json", "python -m training.evaluate golf --field "
                               "openspiel:ismcts:simulations=20 heuristic --games 20 --seed 11 --config num_players=2 "
                               "num_rounds=1")
    out += ["", "## OpenSpiel's IS-MCTS in this library's evaluation", "", measured]
    if bots is not None:
        out += [bots.get("note", "")]
        out += ["", f"`{bots['agent']}` (OpenSpiel's Python IS-MCTS, worlds resampled through the adapter's "
                "`resample_from_infostate`), Golf at two players and one round, in one seat against copies of the "
                "opponent, seats rotated, duplicate deals:", "",
                "| opponent | games | mean reward [95% CI] | seconds |", "|---|---:|---:|---:|"]
        for r in bots["rows"]:
            out.append(f"| {r['opponent']} | {r['games']} | {r['mean_reward']:+.3f} [{r['reward_low']:+.3f}, "
                       f"{r['reward_high']:+.3f}] | {r['seconds']:.0f} |")
        out += ["", "Twenty simulations a decision is what fits in about a second here: every simulation is a "
                "world sampled and a random game played to its end through Python callbacks."]
    nfsp, measured = _recorded("openspiel_nfsp_results.json", "python -m training.openspiel_nfsp golf --minutes 4 "
                               "--json benchmarks/openspiel_nfsp_results.json")
    out += ["", "## NFSP from OpenSpiel, trained on a card_envs game", "", measured]
    if nfsp is not None:
        out += ["", f"`{nfsp['game']}` at `{nfsp['table']}`: {nfsp['episodes']:,} episodes ({nfsp['decisions']:,} "
                f"decisions) in {nfsp['seconds']:.0f} s, then NFSP's average policy (greedy) in this library's "
                "evaluation (field seating, duplicate deals, 95% intervals):", "",
                "| opponent | games | mean reward [95% CI] |", "|---|---:|---:|"]
        for r in nfsp["evaluation"]:
            out.append(f"| {r['opponent']} | {r['games']} | {r['mean_reward']:+.3f} [{r['reward_low']:+.3f}, "
                       f"{r['reward_high']:+.3f}] |")
        out += ["", "A few minutes show that OpenSpiel's learners run on these games, not how strong NFSP can get: "
                "it learns from one game at a time through Python callbacks (see the speed above), orders of "
                "magnitude fewer games than this library's PPO plays on the batched engine in the same time."]
    return "\n".join(out).rstrip() + "\n"


def speed_page() -> str:
    """The speed tables, from the recorded benchmark JSON, each with its machine."""
    from benchmarks.busy import SHORT
    from benchmarks.busy import table as busy_table

    out = ["# Speed", "",
           "Generated from the recorded measurements (`benchmarks/*_results.json`); rerun the benchmark "
           "to replace them. Each table names the machine it was measured on.", ""]
    vec = ROOT / "benchmarks" / "vector_results.json"
    if vec.exists():
        d = json.loads(vec.read_text())
        hearts = d.get("hearts")
        out += ["## The batched engine", "", f"Measured on: {d.get('machine')}"
                + (f", {d['date']}" if d.get("date") else "") + ".", "",
                "Steps per second on one core (actions applied, all games together), at each game's benchmark "
                "table; × hearts: the 1024-game rate against OpenSpiel's C++ `hearts` on the same core in the "
                f"same run ({hearts:,.0f} steps/s, its information-state tensor written every step). The goal: "
                "10× hearts per core in every game"
                + (": " + "; ".join(f"`{r['game']}` {'reaches it' if r['x_hearts'] >= 10 else 'does not'}"
                                    for r in d.get("rows", []) if r.get("x_hearts")) + "."
                   if any(r.get("x_hearts") for r in d.get("rows", [])) else ".")
                if hearts else "Steps per second on one core (actions applied, all games together).", "",
                "| game | `env()` | 1 game | 64 games | 1024 games | 16384 games | × `env()` | × hearts | first call |",
                "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for r in d.get("rows", []):
            def n(k):
                v = r.get(k)
                return f"{v:,.0f}" if isinstance(v, (int, float)) else "—"
            xh = f"{r['x_hearts']:.1f}×" if r.get("x_hearts") else "—"
            first = f"{r['cold']:.0f} s / {r['warm']:.1f} s" if r.get("cold") else "—"
            out.append(f"| `{r['game']}` | {n('env')} | {n('num_envs=1')} | {n('num_envs=64')} | "
                       f"{n('num_envs=1024')} | {n('num_envs=16384')} | {r.get('x_env', 0):.0f}× | {xh} | {first} |")
        tables = "; ".join(f"`{r['game']}` {', '.join(f'{k}={v}' for k, v in (r.get('config') or {}).items())}"
                           for r in d.get("rows", []))
        out += ["", f"The tables: {tables}. 1, 64, 1024 and 16384 games: `vector_env(num_envs=...)`. First call: a "
                "fresh process building `vector_env(num_envs=1024)` and stepping it with the default threads, once "
                "with an empty numba cache (a fresh install compiles the kernels: the first number) and once with "
                "the cache that run left (the second).", ""]
    busy = ROOT / "benchmarks" / "busy_results.json"
    if busy.exists():
        d = json.loads(busy.read_text())
        games = [r for r in d["rows"] if r["unit"] == "steps/s"]
        users = [r for r in d["rows"] if r["unit"] != "steps/s"]

        def worst_by_load(rows: list) -> str:
            return ", ".join(f"{min(r['default_vs_best_fixed'] for r in rows if r['load'] == load):.2f}× beside {load}"
                             for load in sorted({r["load"] for r in rows}))
        idle = min((r["default_vs_idle_before"] for r in d["rows"] if r["load"] == 0 and "default_vs_idle_before" in r),
                   default=None)
        repeats = d.get("repeats", 1)
        rllib_repeats = d.get("rllib_repeats", 1)  # results from before RLlib's cells were repeated: one run
        rllib_runs = ("" if rllib_repeats == repeats or not any(r["what"] == "training.train (RLlib)" for r in users)
                      else f" (RLlib's the median of {rllib_repeats})" if rllib_repeats > 1 else " (RLlib's one run)")
        low = [f"{SHORT.get(r['what'], r['what']).split(',')[0]} beside {r['load']} busy, {r['default_vs_best_fixed']:.2f}×"
               for r in users if r["default_vs_best_fixed"] < 0.8]
        out += ["## On a busy machine", "",
                f"Measured on: {d.get('machine')}, {d.get('date')}, by `{d.get('command')}` ("
                f"each game's choices in fresh processes of their own, started one after the other, warmed up "
                f"by {d['warm']:g} s of steps (the default's thread choice at work, as in a run of minutes), "
                f"then stepping in turns, {d['turn_block']:g} s each, for {d['turn_rounds']} rounds "
                "(the order rotating, so the host's drift and the threads' placements fall on every choice "
                "alike), a rate being its steps over its time; the users' cells separate runs"
                + (f", each the median of {repeats}" if repeats > 1 else "")
                + rllib_runs
                + "). Beside 0, 1 and 2 busy processes (bounded Python loops, one per "
                "core), the batched engine at 1024 games and its users, under each thread choice: `default` (what "
                "card_envs does: beside busy processes at its start, threads that never spin, each batched step on "
                "the thread count its own timing found fastest; on an idle machine, libgomp's spinning and the cores "
                "other processes leave free), "
                "`1 thread`, `numba default` (every core, libgomp's default spinning: what the engine did before), "
                "`passive` (every core, `OMP_WAIT_POLICY=PASSIVE`) and `workqueue` (every core, numba's own threading "
                "layer). Rates are means over the measurement.",
                "", busy_table(d), "",
                "A game's rates are in steps/s; pimc's in decisions/s, SB3's and RLlib's training in learner steps/s "
                "(RLlib: Golf, two env runners on the batched engine, in a virtualenv with the `distributed` extra), "
                "the evaluation's in games/s.", "",
                f"The default against the best fixed choice in the same condition, at worst: the games "
                f"{worst_by_load(games)} busy processes"
                + (f"; the users {worst_by_load(users)}" if users else "")
                + (f" (under 0.8×: {', '.join(low)})" if low else "") + "."
                + (f" On the idle machine, the default against the speed the engine had before it set anything "
                   f"(`numba default`): at worst {idle:.2f}×." if idle is not None else "")
                + " On this shared VM one choice's speed moves by up to 2× from one second to the next (the host's "
                "own load, and where the OS places the threads beside the busy loops), which is why the choices "
                "take turns; every block's rate is in `benchmarks/busy_results.json`.", ""]
        paired = [r["paired_default_vs_best_fixed"] for r in d["rows"] if "paired_default_vs_best_fixed" in r]
        if paired:
            rounds, block = d.get("paired_rounds"), d.get("paired_block", 1.0)
            by_load = {load: min(r["paired_default_vs_best_fixed"] for r in d["rows"]
                                 if r["load"] == load and "paired_default_vs_best_fixed" in r)
                       for load in sorted({r["load"] for r in d["rows"] if "paired" in r})}
            idle_paired = min((r["paired_default_vs_idle_before"] for r in d["rows"]
                               if r["load"] == 0 and "paired_default_vs_idle_before" in r), default=None)
            out += ["**Paired cells.** Where the threads sit changes every few seconds beside busy processes: two "
                    "passive threads ran Guillotine at about 2.3M steps/s while the OS kept the busy loops together "
                    "on one core and at about 0.9M while each of the engine's threads shared a core with one, in one "
                    "process, seconds apart. A cell in a fresh process catches whichever state it meets, so the game "
                    "rows also carry paired cells: one fresh process with the default's environment runs the "
                    "default and the fixed choices that can share its process, "
                    f"{block:g} s each in turn, for {rounds} rounds (the order rotating), and each rate is its total "
                    "steps over its total time. Beside busy processes the engine started with passive threads, and "
                    "the fixed choices are `1 thread` and `passive` (every thread); on the idle machine it spins, "
                    "and they are `1 thread` and `numba default` (every thread whatever the load). The last column: "
                    "the default against the better of them, at worst "
                    + ", ".join(f"{v:.2f}× " + ("idle" if load == 0 else f"beside {load} busy") for load, v in by_load.items())
                    + "."
                    + (f" Idle, the default against `numba default` in the same process: at worst {idle_paired:.2f}×."
                       if idle_paired is not None else ""), ""]
    tr = ROOT / "benchmarks" / "training_results.json"
    if tr.exists():
        d = json.loads(tr.read_text())
        meta = d.get("meta", {})
        out += ["## Training throughput", "",
                f"Measured on: {meta.get('machine')}, Python {meta.get('python')}, {meta.get('date')}; "
                f"{meta.get('seconds')} s per run after {meta.get('warmup')} s of warm-up.", "",
                "| game | set-up | environment steps per second |", "|---|---|---:|"]
        for r in d.get("rows", []):
            for setup, v in r.items():
                if isinstance(v, dict) and "steps_per_s" in v:
                    out.append(f"| `{r['game']}` | {setup} | {v['steps_per_s']:,.0f} |")
        out.append("")
    notes = DOCS / "results" / "speed_notes.md"
    if notes.exists():
        out += ["## How these were measured", "", "\n".join(notes.read_text().splitlines()[1:]).strip(), ""]
    return "\n".join(out).rstrip() + "\n"


def write_all(docs: Path = DOCS) -> list[Path]:
    """Write every generated page; returns their paths (only files whose text changed are rewritten)."""
    pages = {docs / "environments" / f"{g}.md": environment_page(g) for g in GAMES}
    pages[docs / "environments" / "index.md"] = environments_index()
    pages[docs / "rules" / "index.md"] = rules_index()
    pages[docs / "results" / "policies.md"] = policies_page()
    pages[docs / "results" / "speed.md"] = speed_page()
    pages[docs / "results" / "baselines.md"] = baselines_page()
    pages[docs / "results" / "search.md"] = search_page()
    pages[docs / "results" / "leaderboard.md"] = leaderboard_page()
    pages[docs / "results" / "openspiel.md"] = openspiel_page()
    for nb in sorted((ROOT / "notebooks").glob("*.ipynb")):  # rendered with their saved outputs
        pages[docs / "notebooks" / nb.name] = nb.read_text()
    for path, text in pages.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
    drawn = [docs / "environments" / picture(g) for g in GAMES if not picture(g).startswith("../")]
    for path in drawn:  # a game without a committed animation: drawn from a seeded game, once
        if not path.exists():
            from card_envs.pictures import doc_animation

            doc_animation(f"{path.stem}_v0", path)
    return list(pages) + drawn


def main(argv: list[str] | None = None) -> int:
    """``python docs/_ext/generate.py --tables``: rewrite the committed pages' generated tables."""
    args = sys.argv[1:] if argv is None else argv
    if args != ["--tables"]:
        print("usage: python docs/_ext/generate.py --tables   (rewrite the README's games table and the search "
              "guide's table of defaults)", file=sys.stderr)
        return 2
    changed = update_tables()
    print(f"rewrote {', '.join(str(p.relative_to(ROOT)) for p in changed)}" if changed else "the tables are current",
          file=sys.stderr)
    return 0


def notebooks_build():
    """``notebooks/build.py`` as a module: the notebooks' cells and what their outputs depend on."""
    import importlib.util
    import sys

    name = "card_envs_notebooks_build"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "notebooks" / "build.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def stale_notebooks(root: Path = ROOT) -> dict[str, str]:
    """Each committed notebook of ``root/notebooks`` that is not current, with why
    (``notebooks/build.py``'s ``staleness``)."""
    import nbformat

    build = notebooks_build()
    out = {}
    for path in sorted((Path(root) / "notebooks").glob("*.ipynb")):
        why = build.staleness(nbformat.read(path, as_version=4), path.name, root)
        if why:
            out[path.name] = why
    return out


def warn_stale_notebooks(app, root: Path = ROOT) -> list[str]:
    """A warning of the build for each stale notebook (an error under ``-W``); returns them."""
    from sphinx.util import logging

    log = logging.getLogger(__name__)
    warned = []
    for name, why in stale_notebooks(root).items():
        text = f"notebooks/{name}: stale notebook: {why}"
        log.warning(text, type="card_envs", subtype="stale_notebook")
        warned.append(text)
    return warned


def _builder_inited(app):
    write_all(Path(app.srcdir))
    warn_stale_notebooks(app)


def setup(app):
    app.connect("builder-inited", _builder_inited)
    return {"version": "1", "parallel_read_safe": True}


if __name__ == "__main__":
    raise SystemExit(main())
