"""Learning curves from training runs' ``eval.csv`` files, as one image.

    python -m training.curves                          # the shipped agents/pretrained/*.eval.csv
    python -m training.curves runs/golf_v0/my_run/eval.csv --out curve.png
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

PRETRAINED = Path(__file__).resolve().parent.parent / "agents" / "pretrained"


def plot(paths: list[Path], out: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    cols = min(3, len(paths))
    rows = (len(paths) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.0 * rows), squeeze=False)
    for ax, path in zip(axes.ravel(), paths):
        data = list(csv.DictReader(open(path)))
        for opponent in sorted({d["opponent"] for d in data}):
            pts = [d for d in data if d["opponent"] == opponent]
            t = np.array([int(d["timesteps"]) for d in pts])
            y = np.array([float(d["mean_reward"]) for d in pts])
            e = np.array([float(d["reward_ci95"]) for d in pts])
            ax.plot(t, y, label=f"vs {opponent}")
            ax.fill_between(t, y - e, y + e, alpha=0.2)
        ax.axhline(0, color="grey", lw=0.8)
        ax.set_title(path.name.replace(".eval.csv", "").replace("eval.csv", str(path.parent.name)))
        ax.set_xlabel("learner steps")
        ax.set_ylabel("mean reward")
        ax.legend(fontsize=8)
    for ax in axes.ravel()[len(paths):]:
        ax.axis("off")
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m training.curves", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv", nargs="*", type=Path)
    ap.add_argument("--out", type=Path, default=PRETRAINED / "curves.png")
    args = ap.parse_args(argv)
    paths = args.csv or sorted(PRETRAINED.glob("*.eval.csv"))
    if not paths:
        raise SystemExit("no eval.csv files given or shipped")
    print("wrote", plot(paths, args.out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
