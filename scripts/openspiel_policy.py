"""Reading rnad's tabular policy files into OpenSpiel 2.0.2 policies, for
the scripts that check or take apart a policy with OpenSpiel."""

from open_spiel.python import policy as policy_lib


def load_policy(game, table):
    """An OpenSpiel TabularPolicy of `game` from `table`, the map from
    information-state string to [[action, probability], ...] of a policy
    file's `policy` field (actions it leaves out get probability 0)."""
    policy = policy_lib.TabularPolicy(game)
    for key, pairs in table.items():
        row = policy.policy_for_key(key)
        row[:] = 0.0
        for action, probability in pairs:
            row[action] = probability
    return policy
