"""Writes (and optionally executes) the project's notebooks from the cell lists below, so the
notebooks are reviewed as code and regenerated, never hand-edited.

    python notebooks/build.py              # write notebooks/*.ipynb (no outputs)
    python notebooks/build.py --execute    # write and run them, keeping the outputs (commit these)

CI executes the committed notebooks at a small budget (tests/notebooks/) through environment
variables the notebooks read:

- ``CARD_ENVS_NB_GAMES``: games per tournament (each notebook documents its default);
- ``CARD_ENVS_NB_TIMESTEPS``: PPO's training budget in ``your_agent.ipynb`` (default 200,000
  learner decisions, a few minutes on two cores; CI asks for 4,096, which training rounds up to
  one rollout);
- ``CARD_ENVS_NB_RUNS``: the folder ``your_agent.ipynb`` writes its training run into (default
  ``runs``, as ``python -m training.train`` does).

The committed outputs come from ``python notebooks/build.py --execute`` with the tournament
defaults and, for ``your_agent.ipynb``, CI's training budget (``CARD_ENVS_NB_TIMESTEPS=4096``,
rounded up to one PPO rollout: the notebook says so), so that regenerating them takes a few
minutes on two cores: ``--execute`` sets that budget itself (:data:`COMMITTED_BUDGET`), whatever
the shell has set.

What the outputs were executed against is recorded in each notebook's metadata
(``metadata["card_envs"]``): the budget, and the fingerprint :func:`executed_against` computes.
The kernel runs this checkout's code (``PYTHONPATH`` starts with it, and the build checks where
the kernel imported ``card_envs``, ``agents`` and ``training`` from). The fingerprint is the
sha256 of

- the library's version, ``__version__`` as written in ``card_envs/__init__.py``;
- the sha256 of every file matching :data:`FINGERPRINT_INPUTS`, by its path in the checkout: the
  shipped policies (``agents/pretrained/*.zip``), their records (the table each was trained at)
  and learning curves, the heuristics' source (``agents/heuristic.py``, ``agents/heuristics/``
  and their compiled twins, ``agents/heuristics/compiled/``) and the leaderboard's score cards
  (``benchmarks/scorecards/``), which the notebooks set their results beside.

written as compact JSON with sorted keys, ``{"card_envs": VERSION, "files": {PATH: SHA256}}``.
Paths are relative, with ``/``; text files (all but the zips) are hashed with their line endings
as ``\\n``, so a checkout on another machine, or one that writes ``\\r\\n``, gives the same
fingerprint. Any of these files changed, added or removed, or the version bumped, and the
notebooks are stale (:func:`staleness`): a test fails and the documentation's build warns (an
error under ``-W``) until ``python notebooks/build.py --execute`` runs them again. The rest of
the library's code is covered by its version, not file by file.
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import json
import os
import re
import textwrap
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

#: the command that regenerates the committed outputs
REGENERATE = "python notebooks/build.py --execute"
#: the files (glob patterns from the checkout's root) the committed outputs depend on besides the
#: cells below and the library's code: the module's docstring says why each
FINGERPRINT_INPUTS = (
    "agents/pretrained/*.zip",
    "agents/pretrained/*.json",
    "agents/pretrained/*.eval.csv",
    "agents/heuristic.py",
    "agents/heuristics/*.py",
    "agents/heuristics/compiled/*.py",
    "benchmarks/scorecards/*.json",
    "benchmarks/scorecards/shorter/*.json",
)
#: the environment variables the notebooks read their budget from
BUDGET_VARIABLES = ("CARD_ENVS_NB_GAMES", "CARD_ENVS_NB_TIMESTEPS")
#: the budget of the committed outputs: the notebooks' own defaults but for PPO's training in
#: your_agent.ipynb, 4,096 decisions, rounded up to one rollout (the notebook says so)
COMMITTED_BUDGET = {"CARD_ENVS_NB_TIMESTEPS": "4096"}
#: run last in the kernel (and dropped from the notebook): where it imported the project's code from
_PROBE = ("import json, card_envs, agents, training\n"
          "print(json.dumps({m.__name__: m.__file__ for m in (card_envs, agents, training)}))")


def code(text: str):
    """A code cell from an indented triple-quoted block."""
    return new_code_cell(textwrap.dedent(text).strip("\n"))


def markdown(text: str):
    return new_markdown_cell(textwrap.dedent(text).strip("\n"))

TOUR = [
    new_markdown_cell(
        "# card_envs: a researcher's first hour\n\n"
        "Six imperfect-information card games as PettingZoo AEC environments. This tour makes each "
        "environment, renders a game, decodes an observation into its named segments to show what a "
        "player can and cannot see, steps with action names, and runs an evaluation."
    ),
    new_code_cell(
        "import numpy as np\n"
        "import card_envs\n\n"
        "for name, module in card_envs.ENVIRONMENTS.items():\n"
        "    env = module.env()\n"
        "    env.reset(seed=0)\n"
        "    agent = env.agents[0]\n"
        "    print(f\"{name:<16} agents={len(env.possible_agents):<2} actions={env.action_space(agent).n:<4} \"\n"
        "          f\"observation={env.observation_space(agent)['observation'].shape}\")"
    ),
    new_markdown_cell("## Render a game\n\n`render()` shows the table as the agent to act sees it: face-down cards are `##`."),
    new_code_cell(
        "env = card_envs.golf_v0.env(num_players=3, num_rounds=1, render_mode='ansi')\n"
        "env.reset(seed=42)\n"
        "rng = np.random.default_rng(0)\n"
        "final = {}  # each agent's last info: PettingZoo empties env.infos as agents leave\n"
        "for step, agent in enumerate(env.agent_iter()):\n"
        "    obs, reward, terminated, truncated, info = env.last()\n"
        "    if terminated or truncated:\n"
        "        final[agent] = info\n"
        "        env.step(None)\n"
        "        continue\n"
        "    action = int(rng.choice(np.flatnonzero(obs['action_mask'])))\n"
        "    if step in (0, 7, 20):\n"
        "        print(env.render())\n"
        "        print(f'--> {agent}: {env.unwrapped.action_to_string(action)}\\n')\n"
        "    env.step(action)\n"
        "print('final:', final)"
    ),
    new_markdown_cell(
        "## What a player can and cannot see\n\n"
        "The observation vector is a list of named segments (the table is also in each environment's "
        "docstring). `decode` turns it back into the player's view. Here player 0 has just drawn from "
        "the stock: it sees the card; player 1 sees only that a card was drawn."
    ),
    new_code_cell(
        "raw = card_envs.golf_v0.raw_env(num_players=2, num_rounds=1, dealer=1)\n"
        "raw.reset(seed=1)\n"
        "for name in ['flip 0', 'flip 1', 'flip 0', 'flip 1', 'draw stock']:\n"
        "    raw.step(raw.string_to_action(name))\n"
        "layout = raw.observation_layout\n"
        "x = raw.observe('player_0')['observation']\n"
        "for segment, values in layout.split(x).items():\n"
        "    if values.any():\n"
        "        print(f'{segment:<15} {values.ravel()[:13]}')\n"
        "drawer, other = raw.decode(raw.observe('player_0')['observation']), raw.decode(raw.observe('player_1')['observation'])\n"
        "print('\\nthe drawer sees its card:', type(drawer).card_name(drawer.pending), '| the other player:', other.pending, '(source', other.pending_source + ')')\n"
        "print('face-down slots are None for everyone, the owner included:', drawer.grids[0])"
    ),
    new_markdown_cell(
        "A decoded view prints by name: `print(view)` (or `view.readable()`, a plain dict) shows its cards "
        "(Golf views hold ranks: suits never matter there) and codes decoded, while the attributes keep the "
        "numbers the observation encodes. `type(view).CARD_NUMBERING` says what those numbers mean."
    ),
    new_code_cell("print(drawer)\nprint(type(drawer).CARD_NUMBERING)"),
    new_code_cell("print(layout.table())"),
    new_markdown_cell(
        "Leak-freedom is a tested property: for every game, the conformance suite reshuffles every card a "
        "seat cannot see and checks that seat's observation, mask, infos and rendering stay byte-identical. "
        "The public `sample_world(observation, rng, **options)` shows the other side of it: from player 0's "
        "observation alone it draws full game states (in player 0's frame: it is seat 0) that differ in the "
        "cards player 0 cannot see, yet each encodes to the very same observation."
    ),
    new_code_cell(
        "options = {'num_players': 2, 'num_rounds': 1, 'dealer': 1}  # the options raw was made with\n"
        "rng = np.random.default_rng(0)\n"
        "for trial in range(3):\n"
        "    world = card_envs.golf_v0.sample_world(x, rng, **options)\n"
        "    face_down = [card_envs.cards.to_str(c) for c, up in zip(world.grid[1], world.face_up[1]) if not up]\n"
        "    print(\"player_1's face-down cards:\", ' '.join(face_down), '| stock top:', card_envs.cards.to_str(world.stock[-1]),\n"
        "          '| encodes to the same observation:', np.array_equal(raw.encode_view(raw.view_of(world, 0)), x))"
    ),
    new_markdown_cell("## Step with action names, in any game"),
    new_code_cell(
        "g = card_envs.guillotine_v0.raw_env(mode='single', first_dealer=0)\n"
        "g.reset(seed=3)\n"
        "print(g.render_view(g.agent_selection))\n"
        "print('legal:', g.legal_action_names())\n"
        "g.step(g.string_to_action(g.legal_action_names()[0]))\n"
        "print('after', g.legal_action_names()[:8], '...')"
    ),
    new_markdown_cell(
        "## Run an evaluation\n\n"
        "Heuristic against random: each deal is played once per rotation of the line-up (duplicate deals, "
        "so both agents get the same cards), with 95% intervals over deals. The output says how the seats "
        "were filled, and how much the duplicate deals cut the variance of the margin."
    ),
    new_code_cell(
        "import os\n"
        "from training.evaluate import tournament\n"
        "GAMES = int(os.environ.get('CARD_ENVS_NB_GAMES', 500))\n"
        "result = tournament('golf_v0', ['heuristic', 'random'], GAMES, {'num_players': 2, 'num_rounds': 1})\n"
        "print(result.table())"
    ),
    markdown("""
        Two-player Golf of one round is Golf's benchmark table, where the leaderboard measures the
        library's agents ([its Golf row](../results/leaderboard.md#golf-v0)): it has this pair too,
        from other deals. `leaderboard.compare` sets its result beside this one.
    """),
    code("""
        from training import leaderboard

        print(leaderboard.compare(result))
    """),
]

COMPARE = [
    markdown("""
        # Compare policies

        Pick a game; the notebook seats the random, heuristic and PPO agents at one table, runs a
        tournament (every deal played once per rotation of the line-up, 95% intervals over deals) and
        shows the results, sets the head-to-head results beside the leaderboard's, then a bar chart,
        score distributions, the win-rate matrix, the PPO learning curve, and a game of the strongest
        agent replayed from its record, as pictures.

        The PPO policy is either the one shipped for the game (`RUN_DIR = None`) or a training run of
        yours (`RUN_DIR = 'runs/<game>/<run>'`, from `python -m training.train`). A policy knows only
        the table it was trained at, and refuses any other (its `start_game` hook names each differing
        option), so the table is the policy's own: the run's `config.json` `env_config` for a run, or
        the training table recorded beside the shipped policy (`agents/pretrained/<game>.json`). Set
        `CONFIG` to play another table: PPO then sits out with the reason printed (or add `,any_table`
        to `PPO_FLAGS` to seat it anyway, out of its depth).

        `GAMES` is 6,000 by default (`CARD_ENVS_NB_GAMES` overrides it): at a two-seat table every
        two of the three agents then meet on 1,000 deals, each deal played in both seatings, 2,000
        games a pair. Two close agents need that many for the interval of their result to settle
        which is ahead; with a few hundred games it can include 0, and then it says nothing about
        their order.
    """),
    code("""
        import os
        GAME = 'golf_v0'
        RUN_DIR = None   # a training run folder (runs/<game>/<run>): its policy at its table; None: the shipped policy
        CONFIG = None    # the table's options; None: the table the PPO policy was trained at
        PPO_FLAGS = ''   # e.g. ',sample' (sample from the policy instead of argmax) or ',any_table'
        GAMES = int(os.environ.get('CARD_ENVS_NB_GAMES', 6000))
    """),
    code("""
        import csv, json
        from pathlib import Path
        import numpy as np
        import matplotlib.pyplot as plt
        import agents
        from training.evaluate import tournament

        if RUN_DIR:  # a run of yours: its game, its table, its policy (final.zip) and its curve
            run = json.loads((Path(RUN_DIR) / 'config.json').read_text())
            GAME, trained_at, ppo_spec = run['env_name'], run['env_config'], f'ppo:{RUN_DIR}'
            curve = Path(RUN_DIR) / 'eval.csv'
            print(f'PPO: the run {RUN_DIR}, trained on {GAME} {trained_at}')
        else:  # the policy shipped for the game, and the record of how it was trained
            shipped = Path(agents.__file__).parent / 'pretrained'
            record = shipped / f'{GAME}.json'
            info = json.loads(record.read_text()) if record.exists() else None
            trained_at = info['config']['env_config'] if info else None
            ppo_spec = 'ppo'
            curve = shipped / (info['learning_curve'] if info else f'{GAME}.eval.csv')
            print(f'PPO: the policy shipped for {GAME}, trained on {trained_at} ({os.path.relpath(record)})')
        if CONFIG is None:
            CONFIG = dict(trained_at or {})
            print(f'table: {CONFIG}, the PPO policy\\'s training table (set CONFIG to play another)')
        else:
            print(f'table: {CONFIG}')
    """),
    code("""
        specs, names = ['random', 'heuristic'], ['random', 'heuristic']
        try:
            ppo = agents.load(ppo_spec + PPO_FLAGS)
            agents.start_game(ppo, GAME, CONFIG, 'player_0')  # the hook every runner calls: refuses another table
            specs.append(ppo_spec + PPO_FLAGS); names.append('ppo')
        except (ValueError, FileNotFoundError, ImportError) as e:
            print('PPO sits out:', e)
        print('agents:', names)
    """),
    new_code_cell(
        "result = tournament(GAME, specs, GAMES, CONFIG, seed=0, workers=2, names=names, save_games=True)\n"
        "print(result.table())"
    ),
    markdown("""
        ## The same agents on the leaderboard

        The leaderboard ([its Golf row](../results/leaderboard.md#golf-v0), the other games below it;
        `python -m training.leaderboard` in a checkout) measures these agents at each game's
        benchmark table, which is the table the shipped policy was trained at. So with the shipped
        policy at its own table, its head-to-head results (each agent in one seat against copies of
        another, from the score cards in `benchmarks/scorecards/`) measure what this tournament
        does at two seats: the same agents, the same table, the same rank reward, on duplicate
        deals. They differ in the deals (other seeds) and the budget: the leaderboard plays fewer
        games a pair (its protocol's number), so its intervals are wider.

        `leaderboard.compare(result)` sets the two side by side: the first agent's mean rank reward
        against the second, here (at two seats, half the margin printed above: the rank reward is
        +1 to the winner and −1 to the loser) and on the leaderboard, each with its interval and
        the direction it settles, and whether they agree. With another table, another policy
        (`RUN_DIR`) or another way of playing it (`PPO_FLAGS`), it says what differs instead.
    """),
    code("""
        from training import leaderboard

        print(leaderboard.compare(result))
    """),
    code("""
        rows = result.summary()
        fig, ax = plt.subplots(1, 2, figsize=(10, 3.5))
        mean = np.array([r['mean_reward'] for r in rows])
        err = np.array([[r['mean_reward'] - r['reward_low'] for r in rows], [r['reward_high'] - r['mean_reward'] for r in rows]])
        ax[0].bar([r['name'] for r in rows], mean, yerr=err, capsize=6)
        ax[0].axhline(0, color='grey', lw=0.8); ax[0].set_title('mean reward (95% interval)')
        for i, name in enumerate(result.agent_names):
            ax[1].hist(result.game_means('scores', i), bins=30, alpha=0.5, label=name)
        ax[1].set_title('score per game'); ax[1].legend()
        plt.tight_layout(); plt.show()
    """),
    code("""
        m = result.win_matrix()
        labels = result.agent_names
        fig, ax = plt.subplots(figsize=(4, 3.5))
        im = ax.imshow(m, vmin=0, vmax=1, cmap='RdBu')
        ax.set_xticks(range(len(labels)), labels); ax.set_yticks(range(len(labels)), labels)
        for i in range(len(labels)):
            for j in range(len(labels)):
                if i != j: ax.text(j, i, f'{m[i, j]:.2f}', ha='center', va='center')
        ax.set_title('row finishes ahead of column'); plt.colorbar(im); plt.show()
    """),
    code("""
        if curve.exists():
            data = list(csv.DictReader(open(curve)))
            fig, ax = plt.subplots(figsize=(6, 3.5))
            for opponent in sorted({d['opponent'] for d in data}):
                pts = [d for d in data if d['opponent'] == opponent]
                t = [int(d['timesteps']) for d in pts]; y = np.array([float(d['mean_reward']) for d in pts])
                if pts[0].get('reward_low'):  # the curve's own (asymmetric) 95% interval
                    lo, hi = np.array([float(d['reward_low']) for d in pts]), np.array([float(d['reward_high']) for d in pts])
                else:  # a curve written before intervals were bounded: mean ± half-width
                    e = np.array([float(d['reward_ci95']) for d in pts]); lo, hi = y - e, y + e
                ax.plot(t, y, label=f'vs {opponent}'); ax.fill_between(t, lo, hi, alpha=0.2)
            ax.axhline(0, color='grey', lw=0.8); ax.set_xlabel('timesteps'); ax.set_ylabel('mean reward'); ax.legend()
            ax.set_title(f'PPO learning curve ({curve.name}): one seat against copies of each opponent'); plt.show()
        else:
            print('no learning curve at', curve)
    """),
    markdown("""
        ## A game of the strongest agent, replayed

        The tournament kept every game's record (`save_games=True`: the environment and its options,
        the seed, every action with its actor and name, the result; the records that
        `python -m training.evaluate ... --save-games FILE` writes, one JSON line per game). Below, a
        game of the agent with the best mean reward, one it won where there is one, replayed from its
        record (`card_envs.records.frames`: the replay is bit for bit the game, and a record that does
        not match is refused) and pictured as a spectator sees the table: face-down cards and the
        hands as backs. `records.frames(rec, 'player_0')` pictures one seat's view instead; in a
        terminal, `python -m card_envs.records show FILE --game K` steps through a saved game.
    """),
    code("""
        from card_envs import records

        rows = result.summary()
        best = max(range(len(rows)), key=lambda i: rows[i]['mean_reward'])
        held = [g for g in result.games if best in g.lineup]
        won = [g for g in held if any(g.ranks[s] == 1 for s, a in enumerate(g.lineup) if a == best)]
        game = (won or held)[0]
        rec, n = game.record, len(game.record['actions'])
        seats = ', '.join(f'player_{s}' for s, a in enumerate(game.lineup) if a == best)
        print(f"strongest: {rows[best]['name']} (mean reward {rows[best]['mean_reward']:+.3f}) in {seats}; "
              f"game {rec['meta']['game']}, seed {rec['seed']}, {n} actions; scores {rec['scores']}, ranks {rec['ranks']}")
        at = sorted({0, n // 3, (2 * n) // 3, n})
        fig, axes = plt.subplots(2, 2, figsize=(15, 9))
        for ax, k, picture in zip(axes.flat, at, records.frames(rec, at=at)):
            ax.imshow(picture); ax.set_axis_off(); ax.set_title(f'step {k} of {n}')
        for ax in list(axes.flat)[len(at):]:
            ax.set_axis_off()
        plt.tight_layout(); plt.show()
    """),
]

YOUR_AGENT = [
    markdown("""
        # Your agent: write one, evaluate it, train PPO on your table, compare

        What a new user does in a first afternoon, with the public API only:

        1. write an agent: a class with `act`, and the optional `start_game` / `end_game` hooks;
        2. evaluate it against the baselines (`training.evaluate.tournament`: duplicate deals, 95%
           intervals, the seating said in the output);
        3. train PPO briefly on a table of your choice (`training.train.train`, what
           `python -m training.train` runs);
        4. compare the trained policy, your agent and the baselines in one tournament.

        The table here is three-player Golf, one round per game. That is not the table the shipped
        Golf policy was trained at (two players), so the shipped policy refuses it, and PPO has to be
        trained for it.

        Budgets come from environment variables, so that CI runs the notebook in well under a
        minute: `CARD_ENVS_NB_GAMES` (games per tournament, default 600) and `CARD_ENVS_NB_TIMESTEPS`
        (PPO's training budget, default 200,000 learner decisions: about five minutes on two cores).
        **The outputs saved in this notebook trained PPO at CI's budget, 4,096 decisions, which
        training rounds up to one rollout** (its output says how many decisions that is): that
        policy has barely started learning, and the comparison at the end shows how far that gets
        it. Run the notebook with the default budget for a policy that has learned something.
    """),
    code("""
        import os
        GAME = 'golf_v0'
        CONFIG = {'num_players': 3, 'num_rounds': 1}   # your table: any options of card_envs.golf_v0.env(**CONFIG)
        GAMES = int(os.environ.get('CARD_ENVS_NB_GAMES', 600))
        TIMESTEPS = int(os.environ.get('CARD_ENVS_NB_TIMESTEPS', 200_000))
        RUNS = os.environ.get('CARD_ENVS_NB_RUNS', 'runs')   # where training writes its run folder
        print(f'{GAME} {CONFIG}: {GAMES} games per tournament, PPO trained for {TIMESTEPS:,} decisions (rounded up to whole rollouts) into {RUNS}/')
    """),
    markdown("""
        ## 1. Write an agent

        An agent is any object with `act(observation, agent, env_name) -> int`, returning a legal
        action (a 1 in `observation["action_mask"]`). Two optional hooks, which every runner of the
        project calls (tournaments, training opponents, `agents.play`), tell it the table and the
        result:

        - `start_game(env_name, config, agent)`: before each game, once per seat the agent holds,
          with the table's options exactly as passed to `env(**config)`. Here the agent uses them to
          build a decoder for that table: `raw_env(**config).decode(vector)` turns an observation
          into the game's `PlayerView`, with named fields.
        - `end_game(observation, reward, info)`: after the game, once per seat held, with the seat's
          total reward and its final info (`score`, `rank`). Here the agent keeps a log.

        The idea: Golf scores each column of the two-by-three layout (a pair of equal ranks scores
        0). Put the card in hand where it lowers the layout's expected score the most, counting a
        face-down card at the deck's average value; take the discard pile's top card only when it
        would save at least 3 points; discard a drawn card that helps nowhere.
    """),
    code("""
        import numpy as np
        import card_envs

        VALUE = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 0, 10, 10)   # Golf's points of ranks A 2 .. 10 J Q K (views hold ranks 0..12)
        UNSEEN = sum(VALUE) / len(VALUE)                     # a face-down card's expected value, about 5.8
        PARTNER = (3, 4, 5, 0, 1, 2)                         # slots i and i+3 form a column
        # actions (help(card_envs.golf_v0)): 0-5 flip / replace slot i, then these
        DRAW_STOCK, TAKE_DISCARD, DISCARD_DRAWN, NO_FLIP = 6, 7, 8, 9


        class GreedyGolfer:
            \"\"\"Golf by expected column score: place each card where it saves the most points.\"\"\"

            name = 'greedy'
            take_discard_gain = 3.0

            def __init__(self):
                self.decoders = {}   # one raw env per table, used only to decode observations
                self.log = []        # one entry per seat and game, from end_game

            # ----------------------------------------------------------------------------- hooks
            def start_game(self, env_name, config, agent):
                key = (env_name, repr(sorted(config.items())))
                if key not in self.decoders:
                    self.decoders[key] = card_envs.ENVIRONMENTS[env_name].raw_env(**config)
                self.decoder = self.decoders[key]

            def end_game(self, observation, reward, info):
                self.log.append({'reward': reward, 'score': info['score'], 'rank': info['rank']})

            # ------------------------------------------------------------------------ the choice
            @staticmethod
            def column(a, b):
                \"\"\"Expected points of a column holding ranks a and b (None: face down).\"\"\"
                if a is not None and a == b:
                    return 0.0
                return (UNSEEN if a is None else VALUE[a]) + (UNSEEN if b is None else VALUE[b])

            def best_slot(self, grid, rank, slots):
                \"\"\"(slot, points saved) of the best place among ``slots`` for a card of ``rank``.\"\"\"
                saved = [self.column(grid[i], grid[PARTNER[i]]) - self.column(rank, grid[PARTNER[i]]) for i in slots]
                k = int(np.argmax(saved))
                return slots[k], saved[k]

            def act(self, observation, agent, env_name):
                legal = observation['action_mask']
                view = self.decoder.decode(observation['observation'])
                mine = view.grids[0]   # relative seats: 0 is this player
                if view.phase in ('flip', 'flip_step'):   # the opening flips (or an optional flip: skip it)
                    return NO_FLIP if legal[NO_FLIP] else int(np.flatnonzero(legal[:6])[0])
                if view.phase == 'draw':
                    open_slots = [i for i in range(6) if not view.closed[0][i % 3]]
                    if legal[TAKE_DISCARD] and open_slots:
                        _, saved = self.best_slot(mine, view.discard_top, open_slots)
                        if saved >= self.take_discard_gain:
                            return TAKE_DISCARD
                    return DRAW_STOCK
                slot, saved = self.best_slot(mine, view.pending, list(np.flatnonzero(legal[:6])))
                if saved <= 0 and legal[DISCARD_DRAWN]:
                    return DISCARD_DRAWN
                return int(slot)


        greedy = GreedyGolfer()
    """),
    markdown("""
        Watch it decide, in a loop of your own. A loop that is not one of the project's runners calls
        the hooks itself, through `agents.start_game` / `agents.end_game` (they skip an agent that
        lacks them). `print(view)` shows a decoded view by name.
    """),
    code("""
        import agents

        players = {'player_0': greedy, 'player_1': agents.load('random', seed=1), 'player_2': agents.load('random', seed=2)}
        env = card_envs.golf_v0.env(**CONFIG)
        env.reset(seed=7)
        for seat, player in players.items():
            agents.start_game(player, GAME, CONFIG, seat)
        total, final = dict.fromkeys(env.possible_agents, 0.0), {}
        for seat in env.agent_iter():
            obs, reward, terminated, truncated, info = env.last()
            total[seat] += reward
            if terminated or truncated:
                final[seat] = (obs, info)
                env.step(None)
                continue
            action = players[seat].act(obs, seat, GAME)
            view = env.unwrapped.decode(obs['observation'])
            if seat == 'player_0' and view.phase == 'place' and view.turns < 12:
                if view.turns < 3:
                    print(view, '\\n')  # its first decision in full
                mine = view.readable()['grids'][0]
                print(f'turn {view.turns:>2}: greedy holds {view.readable()["pending"]:>2} ({view.pending_source}), '
                      f'its layout {mine}: {env.unwrapped.action_to_string(action)}')
            env.step(action)
        for seat, player in players.items():
            agents.end_game(player, final[seat][0], total[seat], final[seat][1])
        print({seat: info for seat, (obs, info) in final.items()})
        print('greedy heard its result:', greedy.log[-1])
    """),
    markdown("""
        ## 2. Evaluate it against the baselines

        `tournament(game, agents, games, config)` seats the agents in the order listed (the
        line-up), and plays every deal once per rotation of the line-up with the same cards
        (duplicate deals), so each agent plays every seat on every deal and the luck of the cards
        cancels. Intervals are 95% over deals, printed `[low, high]`; "sole 1st" and "shared 1st"
        are first places alone and tied. The agent is passed as an object, so the games run in this
        process and its `end_game` log fills here (to spread a tournament over processes, or to use
        it from the command line, put the class in a file and name it by spec:
        `py:my_agents.py:GreedyGolfer`).

        Three-player Golf is not the table the leaderboard plays (two players, one round), so it has
        no numbers to set beside these.
    """),
    code("""
        from training.evaluate import tournament

        greedy.log.clear()
        result = tournament(GAME, [greedy, 'heuristic', 'random'], GAMES, CONFIG, seed=0)
        print(result.table())
        ranks = [entry['rank'] for entry in greedy.log]
        print(f'\\ngreedy\\'s own log: {len(greedy.log)} games, mean rank {np.mean(ranks):.2f}')
    """),
    markdown("""
        The line-up above puts one of each agent at the table. The **field** seating asks the
        question training asks: one agent in one seat against copies of another in all the others
        (here greedy against two heuristics), its seat rotated.
    """),
    code("""
        field = tournament(GAME, [greedy, 'heuristic'], GAMES, CONFIG, seed=0, field=True)
        print(field.table())
    """),
    markdown("""
        ## 3. Train PPO on your table

        The shipped Golf policy was trained at another table, and says so instead of playing:
    """),
    code("""
        try:
            agents.start_game(agents.load('ppo'), GAME, CONFIG, 'player_0')
        except ValueError as e:
            print('refused:', e)
    """),
    markdown("""
        So train one. `training.train.train` is what `python -m training.train golf --config
        num_players=3 num_rounds=1 --timesteps N` runs: the learner plays one seat (rotating each
        game) against opponents drawn from random, heuristic and frozen copies of itself, and the run
        folder gets the configuration, checkpoints, the evaluation curve (`eval.csv`: the learner
        against copies of random and of the heuristic, evaluated as in the field seating above) and
        the final policy (`final.zip`). The table's options go in `config`; a section such as `eval`
        merges key by key with the defaults of `training/configs/`.
    """),
    code("""
        from training.train import train

        run_dir = train(GAME, timesteps=TIMESTEPS, config={**CONFIG, 'eval': {'every': max(TIMESTEPS // 4, 4096), 'games': min(GAMES, 200)}},
                        out=RUNS, progress=False, final_eval=False)
        print(sorted(p.name for p in run_dir.iterdir()))
    """),
    code("""
        import csv
        import matplotlib.pyplot as plt

        curve = list(csv.DictReader(open(run_dir / 'eval.csv')))
        fig, ax = plt.subplots(figsize=(6, 3.5))
        for opponent in ('random', 'heuristic'):
            pts = [d for d in curve if d['opponent'] == opponent]
            t = [int(d['timesteps']) for d in pts]
            ax.plot(t, [float(d['mean_reward']) for d in pts], marker='o', label=f'vs {opponent}')
            ax.fill_between(t, [float(d['reward_low']) for d in pts], [float(d['reward_high']) for d in pts], alpha=0.2)
        ax.axhline(0, color='grey', lw=0.8); ax.set_xlabel('timesteps'); ax.set_ylabel('mean reward (95% interval)')
        ax.set_title('PPO against copies of each opponent, during training'); ax.legend(); plt.show()
    """),
    markdown("""
        ## 4. Compare everything in one tournament

        `agents.load(f"ppo:{run_dir}")` loads the run's final policy; it checks the table against
        the options it was trained with (the same here, so it plays). With four agents for three
        seats, every three of them form a line-up, each rotated, every deal played by all of them.
    """),
    code("""
        trained = f'ppo:{run_dir}'
        agents.start_game(agents.load(trained), GAME, CONFIG, 'player_0')   # accepted: its own table
        final = tournament(GAME, [greedy, trained, 'heuristic', 'random'], GAMES, CONFIG, seed=1,
                           names=['greedy', 'ppo (this run)', 'heuristic', 'random'])
        print(final.table())
    """),
    markdown("""
        `final.write('results/')` saves `summary.json` (every statistic above, the win matrix, the
        pairwise margins, the deal seeds, the policy files the agents resolved to and the versions)
        and `games.csv`. The policy record, for instance:
    """),
    code("""
        import json

        record = final.to_json()
        print(json.dumps(record['policies']['ppo (this run)'], indent=1))
        print('win matrix (row ahead of column):', final.agent_names)
        print(np.round(final.win_matrix(), 2))
    """),
    markdown("""
        ## From the command line

        The same steps, with the agent class saved in `my_agents.py`:

            python -m training.train golf --players 3 --config num_rounds=1 --timesteps 200000
            python -m training.evaluate golf py:my_agents.py:GreedyGolfer ppo:runs/golf_v0/<run> heuristic random \\
                --players 3 --config num_rounds=1 --games 2000 --out results/

        Ideas to take further: count the cards seen (the view's `discard_counts`) to value a
        face-down card better than the deck's average; train longer, or against a pool weighted
        towards the heuristic (`opponent_weights`); try another table (`flip_after_discard='may'`).
    """),
]

NOTEBOOKS = {"tour.ipynb": TOUR, "compare_policies.ipynb": COMPARE, "your_agent.ipynb": YOUR_AGENT}


# ----------------------------------------------------------------- what the outputs depend on
def library_version(root: Path = ROOT) -> str:
    """``card_envs.__version__`` as ``card_envs/__init__.py`` in ``root`` writes it (not imported:
    the check reads the checkout, whatever copy of the library is installed)."""
    text = (Path(root) / "card_envs" / "__init__.py").read_text()
    found = re.search(r"^__version__\s*=\s*[\"']([^\"']+)[\"']", text, re.M)
    if not found:
        raise ValueError(f"{root}/card_envs/__init__.py sets no __version__")
    return found.group(1)


def file_sha256(path: Path) -> str:
    """A file's sha256, a text file's (anything but a zip) with its line endings read as ``\\n``."""
    data = Path(path).read_bytes()
    if Path(path).suffix != ".zip":
        data = data.replace(b"\r\n", b"\n")
    return hashlib.sha256(data).hexdigest()


def executed_against(root: Path = ROOT) -> dict:
    """What the notebooks' outputs depend on in the checkout at ``root``: the library's version,
    the sha256 of every file of :data:`FINGERPRINT_INPUTS` by its relative path, and their
    ``fingerprint`` (the module's docstring defines it)."""
    root = Path(root)
    files = {}
    for pattern in FINGERPRINT_INPUTS:
        for path in sorted(root.glob(pattern)):
            if path.is_file():
                files[path.relative_to(root).as_posix()] = file_sha256(path)
    version = library_version(root)
    blob = json.dumps({"card_envs": version, "files": files}, sort_keys=True, separators=(",", ":"))
    return {"fingerprint": hashlib.sha256(blob.encode()).hexdigest(), "card_envs": version,
            "files": dict(sorted(files.items()))}


def staleness(nb, name: str, root: Path = ROOT) -> str | None:
    """None when the notebook ``name`` (read with nbformat) is current: its cells are this
    file's and its outputs were executed against the checkout at ``root`` as it is (the same
    fingerprint). Otherwise why not, naming what changed, and the command that regenerates it."""
    if name not in NOTEBOOKS:
        return f"no notebook {name} is written by notebooks/build.py"
    why = []
    if [c.source for c in nb.cells] != [c.source for c in NOTEBOOKS[name]]:
        why.append("its cells are not those of notebooks/build.py")
    recorded = (nb.metadata.get("card_envs") or {}).get("executed_against")
    now = executed_against(root)
    if not recorded:
        why.append("it records nothing its outputs were executed against")
    elif recorded.get("fingerprint") != now["fingerprint"]:
        old, new = recorded.get("files") or {}, now["files"]
        changed = [f"{path} ({'added' if path not in old else 'removed' if path not in new else 'changed'})"
                   for path in sorted(set(old) | set(new)) if old.get(path) != new.get(path)]
        if recorded.get("card_envs") != now["card_envs"]:
            changed.insert(0, f"card_envs {recorded.get('card_envs')} -> {now['card_envs']}")
        why.append(f"its outputs were executed against another checkout (fingerprint "
                   f"{str(recorded.get('fingerprint'))[:12]}, this one {now['fingerprint'][:12]}; changed since: "
                   f"{', '.join(changed) or 'the fingerprint itself'})")
    return f"{'; '.join(why)}: regenerate it with {REGENERATE}" if why else None


# ---------------------------------------------------------------------------------- running
def execute_notebook(nb, variables: dict, timeout: int = 1200, root: Path = ROOT):
    """Runs the notebook ``nb`` top to bottom in a new kernel, in ``root`` and on its code
    (``PYTHONPATH`` starts with ``root``), with the environment variables ``variables`` (one of
    :data:`BUDGET_VARIABLES` not in it is unset, so the notebook's default applies; a value None
    unsets the variable too). Raises when the kernel imported the project's code from anywhere
    else. Returns ``nb``, its outputs filled in."""
    from nbclient import NotebookClient

    root = Path(root).resolve()
    env = {k: v for k, v in os.environ.items() if k not in BUDGET_VARIABLES}
    env.update({k: str(v) for k, v in variables.items() if v is not None})
    for k in [k for k, v in variables.items() if v is None]:
        env.pop(k, None)
    env["PYTHONPATH"] = os.pathsep.join([str(root)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])
    nb.cells.append(new_code_cell(_PROBE))
    try:
        NotebookClient(nb, timeout=timeout, kernel_name="python3", resources={"metadata": {"path": str(root)}}).execute(env=env)
        probe = nb.cells[-1]
    finally:
        nb.cells.pop()
    origins = json.loads("".join(o.get("text", "") for o in probe.outputs if o.output_type == "stream"))
    check_origins(origins, root)
    return nb


def check_origins(origins: dict, root: Path = ROOT) -> None:
    """Raises unless every module of ``origins`` (name: its ``__file__``) was imported from
    ``root``: a kernel that ran another copy of the library (an editable install of another
    checkout) computed nothing about this one."""
    root = Path(root).resolve()
    elsewhere = {m: f for m, f in origins.items() if not Path(f).resolve().is_relative_to(root)}
    if elsewhere:
        raise RuntimeError(f"the kernel imported {', '.join(f'{m} from {f}' for m, f in elsewhere.items())}, not "
                           f"from {root}: its outputs would describe another copy of the library")


def build(execute: bool = False, names=None, timeout: int = 1200) -> list[Path]:
    """Writes the notebooks (``names``, or all); with ``execute``, runs each at
    :data:`COMMITTED_BUDGET` first and records in its metadata what its outputs were executed
    against (:func:`executed_against`) and at what budget."""
    written = []
    for name, cells in NOTEBOOKS.items():
        if names and name not in names:
            continue
        nb = new_notebook(cells=copy.deepcopy(cells),
                          metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}})
        if execute:
            print(f"executing {name} ...", flush=True)
            against = executed_against()
            execute_notebook(nb, {**COMMITTED_BUDGET, "MPLBACKEND": None}, timeout)  # the figures inline, as a reader sees them
            if executed_against() != against:
                raise RuntimeError(f"the checkout changed while {name} ran: run {REGENERATE} again")
            nb.metadata["card_envs"] = {"executed_against": against, "budget": dict(COMMITTED_BUDGET),
                                        "regenerate": REGENERATE}
        path = HERE / name
        nbformat.write(nb, path)
        written.append(path)
    return written


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--execute", action="store_true")
    ap.add_argument("names", nargs="*")
    args = ap.parse_args()
    os.chdir(ROOT)
    for p in build(args.execute, args.names):
        print("wrote", p)
