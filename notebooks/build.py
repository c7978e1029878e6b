"""Writes (and optionally executes) the project's notebooks from the cell lists below, so the
notebooks are reviewed as code and regenerated, never hand-edited.

    python notebooks/build.py              # write notebooks/*.ipynb (no outputs)
    python notebooks/build.py --execute    # write and run them, keeping the outputs (commit these)

CI executes the committed notebooks at a small budget (tests/notebooks/), with
``CARD_ENVS_NB_GAMES`` lowering the number of tournament games.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

HERE = Path(__file__).resolve().parent

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
        "for step, agent in enumerate(env.agent_iter()):\n"
        "    obs, reward, terminated, truncated, info = env.last()\n"
        "    if terminated or truncated:\n"
        "        env.step(None)\n"
        "        continue\n"
        "    action = int(rng.choice(np.flatnonzero(obs['action_mask'])))\n"
        "    if step in (0, 7, 20):\n"
        "        print(env.render())\n"
        "        print(f'--> {agent}: {env.unwrapped.action_to_string(action)}\\n')\n"
        "    env.step(action)\n"
        "print('final:', {a: env.infos[a] for a in env.possible_agents} if env.agents else info)"
    ),
    new_markdown_cell(
        "## What a player can and cannot see\n\n"
        "The observation vector is a list of named segments (the table is also in each environment's "
        "docstring). `decode` turns it back into the player's view. Here player 1 has just drawn from "
        "the stock: it sees the card; player 0 sees only that a card was drawn."
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
        "from card_envs.cards import RANKS\n"
        "print('\\nthe drawer sees its card:', RANKS[drawer.pending], '| the other player:', other.pending, '(source', other.pending_source + ')')\n"
        "print('face-down slots are None for everyone, the owner included:', drawer.grids[0])"
    ),
    new_code_cell("print(layout.table())"),
    new_markdown_cell(
        "Leak-freedom is a tested property: for every game, the conformance suite reshuffles every card a "
        "seat cannot see and checks that seat's observation, mask, infos and rendering stay byte-identical."
    ),
    new_code_cell(
        "state = raw.game_state\n"
        "for trial in range(3):\n"
        "    other_world = raw.rules.resample_hidden(state, 0, np.random.default_rng(trial))\n"
        "    raw.game_state = other_world\n"
        "    print('hidden cards differ:', raw.rules.zones(other_world) != raw.rules.zones(state),\n"
        "          '| player_0 observes the same:', np.array_equal(raw.observe('player_0')['observation'], x))\n"
        "raw.game_state = state"
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
    new_markdown_cell("## Run an evaluation\n\nHeuristic against random over rotated seats, with 95% confidence intervals."),
    new_code_cell(
        "import os\n"
        "from training.evaluate import tournament\n"
        "GAMES = int(os.environ.get('CARD_ENVS_NB_GAMES', 500))\n"
        "result = tournament('golf_v0', ['heuristic', 'random'], GAMES, {'num_players': 2, 'num_rounds': 1})\n"
        "print(result.table())"
    ),
]

COMPARE = [
    new_markdown_cell(
        "# Compare policies\n\n"
        "Pick a game and a configuration; the notebook loads the random, heuristic and pretrained PPO "
        "agents, runs a tournament over rotated seats and shows the results with 95% intervals, a bar "
        "chart, score distributions, the win-rate matrix, and the PPO training curve."
    ),
    new_code_cell(
        "import os\n"
        "GAME = 'golf_v0'\n"
        "CONFIG = {'num_players': 2, 'num_rounds': 1}\n"
        "GAMES = int(os.environ.get('CARD_ENVS_NB_GAMES', 1000))\n"
        "RUN_DIR = None  # a training run folder (runs/<game>/<run>); None: the pretrained policy's record"
    ),
    new_code_cell(
        "from pathlib import Path\n"
        "import numpy as np\n"
        "import matplotlib.pyplot as plt\n"
        "import agents, card_envs\n"
        "from training.evaluate import tournament\n\n"
        "specs, names = ['random', 'heuristic'], ['random', 'heuristic']\n"
        "try:\n"
        "    ppo = agents.load('ppo')\n"
        "    ppo.policy_for(GAME) if hasattr(ppo, 'policy_for') else None\n"
        "    specs.append('ppo'); names.append('ppo')\n"
        "except (ValueError, FileNotFoundError, ImportError) as e:\n"
        "    print('no PPO policy:', e)\n"
        "print('agents:', names)"
    ),
    new_code_cell(
        "result = tournament(GAME, specs, GAMES, CONFIG, seed=0, workers=2, names=names)\n"
        "print(result.table())"
    ),
    new_code_cell(
        "rows = result.summary()\n"
        "fig, ax = plt.subplots(1, 2, figsize=(10, 3.5))\n"
        "ax[0].bar([r['name'] for r in rows], [r['mean_reward'] for r in rows], yerr=[r['reward_ci95'] for r in rows], capsize=6)\n"
        "ax[0].axhline(0, color='grey', lw=0.8); ax[0].set_title('mean reward (95% CI)')\n"
        "for i, name in enumerate(names):\n"
        "    ax[1].hist(result.game_means('scores', i), bins=30, alpha=0.5, label=name)\n"
        "ax[1].set_title('score per game'); ax[1].legend()\n"
        "plt.tight_layout(); plt.show()"
    ),
    new_code_cell(
        "m = result.win_matrix()\n"
        "fig, ax = plt.subplots(figsize=(4, 3.5))\n"
        "im = ax.imshow(m, vmin=0, vmax=1, cmap='RdBu')\n"
        "ax.set_xticks(range(len(names)), names); ax.set_yticks(range(len(names)), names)\n"
        "for i in range(len(names)):\n"
        "    for j in range(len(names)):\n"
        "        if i != j: ax.text(j, i, f'{m[i, j]:.2f}', ha='center', va='center')\n"
        "ax.set_title('row finishes ahead of column'); plt.colorbar(im); plt.show()"
    ),
    new_code_cell(
        "import csv\n"
        "curve = Path(RUN_DIR) / 'eval.csv' if RUN_DIR else Path(agents.__file__).parent / 'pretrained' / f'{GAME}.eval.csv'\n"
        "if curve.exists():\n"
        "    data = list(csv.DictReader(open(curve)))\n"
        "    fig, ax = plt.subplots(figsize=(6, 3.5))\n"
        "    for opponent in sorted({d['opponent'] for d in data}):\n"
        "        pts = [d for d in data if d['opponent'] == opponent]\n"
        "        t = [int(d['timesteps']) for d in pts]; y = np.array([float(d['mean_reward']) for d in pts])\n"
        "        e = np.array([float(d['reward_ci95']) for d in pts])\n"
        "        ax.plot(t, y, label=f'vs {opponent}'); ax.fill_between(t, y - e, y + e, alpha=0.2)\n"
        "    ax.axhline(0, color='grey', lw=0.8); ax.set_xlabel('timesteps'); ax.set_ylabel('mean reward'); ax.legend()\n"
        "    ax.set_title(f'PPO learning curve ({curve})'); plt.show()\n"
        "else:\n"
        "    print('no learning curve at', curve)"
    ),
]

NOTEBOOKS = {"tour.ipynb": TOUR, "compare_policies.ipynb": COMPARE}


def build(execute: bool = False, names=None, timeout: int = 1200) -> list[Path]:
    written = []
    for name, cells in NOTEBOOKS.items():
        if names and name not in names:
            continue
        nb = new_notebook(cells=cells, metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}})
        if execute:
            from nbclient import NotebookClient

            NotebookClient(nb, timeout=timeout, kernel_name="python3", resources={"metadata": {"path": str(HERE.parent)}}).execute()
        path = HERE / name
        nbformat.write(nb, path)
        written.append(path)
    return written


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--execute", action="store_true")
    ap.add_argument("names", nargs="*")
    args = ap.parse_args()
    os.chdir(HERE.parent)
    for p in build(args.execute, args.names):
        print("wrote", p)
