#!/usr/bin/env python3
"""Offline power and A/A error of the betting test's FASTER bet with a fixed scale s0 against the
adapted scale (BettingConfig::adapt_s0), on normal d's of a known spread, for priors half, equal
to and three times that spread. It restates BettingRule's FASTER and SLOWER bets (four lambdas,
clipped d/s, the prior's weight 4 against the pairs' robust spread after 3 pairs) without the SAME
bets, so a decision here never stops SAME. Figures in docs/STATISTICS.md, "The adapted s0 on the
real cpu". Usage: scripts/betting-scale-sim.py [DECISIONS_PER_CELL]"""
import math
import random
import statistics
import sys

LAMBDAS = [0.25, 0.5, 0.75, 0.9]
ALPHA, CAP, PRIOR_WEIGHT, ADAPT_AFTER = 0.05, 24, 4.0, 3


def log_mean_exp(logs):
    top = max(logs)
    return top + math.log(sum(math.exp(x - top) for x in logs) / len(logs))


def scale(d, s0, adapt):
    n = len(d)
    if not adapt or n < ADAPT_AFTER:
        return s0
    center = statistics.median(d)
    spread = 1.4826 * statistics.median([abs(x - center) for x in d])
    if spread <= 0:
        return s0
    return math.exp((PRIOR_WEIGHT * math.log(s0) + n * math.log(spread)) / (PRIOR_WEIGHT + n))


def decide(d, s0, adapt):
    faster, slower = [0.0] * 4, [0.0] * 4
    for i in range(CAP):
        g = max(-1.0, min(1.0, d[i] / scale(d[:i], s0, adapt)))
        for j, lam in enumerate(LAMBDAS):
            faster[j] += math.log1p(-lam * g)
            slower[j] += math.log1p(lam * g)
        if log_mean_exp(faster) >= math.log(1 / ALPHA):
            return "FASTER"
        if log_mean_exp(slower) >= math.log(1 / ALPHA):
            return "SLOWER"
    return "INCONCLUSIVE"


def main():
    decisions = int(sys.argv[1]) if len(sys.argv) > 1 else 600
    rng = random.Random(1)
    for spread in [0.015, 0.03, 0.05, 0.10]:
        for ratio in [0.5, 1, 3]:
            rates = {}
            for adapt in [False, True]:
                for effect in [0.03, 0.0]:
                    hits = 0
                    for _ in range(decisions):
                        d = [math.log(1 - effect) + spread * rng.gauss(0, 1) for _ in range(CAP)]
                        hits += decide(d, spread * ratio, adapt) == "FASTER"
                    rates[adapt, effect] = hits / decisions
            print(f"spread of d {spread:.1%}, s0 {ratio}x: 3% effect FASTER fixed "
                  f"{rates[False, 0.03]:.1%} adapted {rates[True, 0.03]:.1%}; A/A FASTER fixed "
                  f"{rates[False, 0.0]:.1%} adapted {rates[True, 0.0]:.1%}", flush=True)


if __name__ == "__main__":
    main()
