"""Reads TensorBoard event files with TensorBoard's own loader and prints
every scalar as JSON: {"tag": [[step, value], ...], ...}.

    python scripts/read-tensorboard.py DIR

Used by evaluator/tests/tensorboard.rs to check `rnad-evaluator
tensorboard` against the reader TensorBoard itself uses (the tensorboard
package, installed by docker/install-check-tools.sh).
"""

import json
import sys

from tensorboard.backend.event_processing.event_accumulator import EventAccumulator


def main(directory):
    accumulator = EventAccumulator(directory, size_guidance={"scalars": 0})
    accumulator.Reload()
    scalars = {
        tag: [[event.step, event.value] for event in accumulator.Scalars(tag)]
        for tag in accumulator.Tags()["scalars"]
    }
    json.dump(scalars, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1])
