"""How close to an equilibrium a policy can get when NeuRD's threshold β
holds its logits: the NashConv floor that `rnad.beta_neurd` puts under
training.

NeuRD stops pushing a logit down once its value centred on the legal mean
is at −β (and up once it is at +β). Logits that should go to −∞ (actions an
equilibrium never plays) therefore stay at −β, and the centring lifts the
others: in a state with two legal actions the dominated one keeps
1/(1 + e^(2β)) of the probability (1.8% at β = 2). This script takes an
(almost) exact equilibrium, moves every centred logit below −β up to −β
(repeating the centring until nothing changes), and reports the NashConv of
the result for each β: no network trained with that β can be expected to
play much closer to equilibrium than this.

Usage (standard library only; the evaluator binary built):

    rnad-evaluator solve --game leduc_poker --algorithm cfr+ --iterations 2000 --out nash.json
    python3 scripts/neurd-threshold-floor.py nash.json leduc_poker 1,2,3,4,6 \
        target/release/rnad-evaluator OUT_DIR

Writes OUT_DIR/beta-B.json (the projected policy) for each β and prints one
JSON object per line: beta, nash_conv.
"""

import json
import math
import os
import subprocess
import sys


def project(probabilities, beta):
    """The policy whose centred logits are those of `probabilities`, each
    raised to at least −beta (a fixed point of centre-then-raise)."""
    logits = [math.log(max(p, 1e-300)) for p in probabilities]
    for _ in range(1000):
        mean = sum(logits) / len(logits)
        raised = [max(x - mean, -beta) for x in logits]
        if max(abs(a - b) for a, b in zip(raised, logits)) < 1e-12:
            break
        logits = raised
    weights = [math.exp(x) for x in logits]
    total = sum(weights)
    return [w / total for w in weights]


def main():
    source, game, betas, evaluator, out_dir = sys.argv[1:6]
    table = json.load(open(source))
    table = table.get("policy", table)
    os.makedirs(out_dir, exist_ok=True)
    for beta in [float(b) for b in betas.split(",")]:
        projected = {}
        for key, pairs in table.items():
            probabilities = project([p for _, p in pairs], beta)
            projected[key] = [[a, p] for (a, _), p in zip(pairs, probabilities)]
        path = os.path.join(out_dir, f"beta-{beta:g}.json")
        with open(path, "w") as f:
            json.dump({"game": game, "policy": projected}, f)
        report = subprocess.run(
            [evaluator, "eval", "--game", game, "--policy", path, "--json"],
            check=True,
            capture_output=True,
            text=True,
        )
        print(json.dumps({"beta": beta, "nash_conv": json.loads(report.stdout)["nash_conv"]}))


if __name__ == "__main__":
    main()
