# Golden GNU Backgammon Match IDs, with the match state gnubg reports.
#
# Regenerate (from this directory; GNU Backgammon 1.07.001, Debian's gnubg):
#     gnubg -t -q -p gnubg_match_ids.py
# which writes gnubg_match_ids.txt in the current directory.
#
# Two sources, every distinct ID once:
# - gnubg plays itself at 0-ply with the cube, a money session and matches
#   of 1 to 11 points; every record of every game is visited (before a
#   roll, a move, a double, a take or drop, a resignation) and so is the
#   end of each game.
# - States set up by hand, as a person at the board would: a match length,
#   a score, the Crawford and Jacoby rules, the cube's value and owner, who
#   is on roll, then dice, a double or a resignation offered.
# Beside each ID, the state as gnubg's cubeinfo() and posinfo() give it (in
# money play, where cubeinfo() reports 0-0, the session's score from the
# match record), so the test checks both directions against something
# other than the ID.
import os
import random
import sys

import gnubg

# gnubg -p does not put the script's directory on the module path.
sys.path.insert(0, os.getcwd())
import gnubg_selfplay  # noqa: E402

SEED = 20261202
SELF_PLAY = [0, 1, 3, 5, 7, 11]
MONEY_GAMES = 6
BY_HAND = 600

gnubg_selfplay.configure(seed=SEED, cube=True)
jacoby = 1
gnubg.command("set jacoby on")

lines = [
    "# GNU Backgammon Match IDs with the state gnubg reports (gnubg_match_ids.py).",
    "# id cube owner on-roll crawford state turn doubled resigned die die",
    "# length score0 score1 jacoby: owner -1 for a centred cube; state 0 no game,",
    "# 1 playing, 2 over, 3 resigned, 4 dropped; resigned 0-3 (none, single,",
    "# gammon, backgammon); dice 0 0 before the roll; length 0 for money.",
]
seen = set()


def record(score=None):
    """Writes the state shown, once per ID; `score` is the players' score
    where cubeinfo() does not give it (it reports 0-0 in money play, where
    the ID holds the session's score)."""
    mid = gnubg.matchid()
    if mid in seen:
        return
    try:
        cube, pos = gnubg.cubeinfo(), gnubg.posinfo()
    except Exception:
        # No cube information once the match is over: nothing to check.
        return
    seen.add(mid)
    if score is None or cube["matchto"]:
        assert score is None or tuple(score) == tuple(cube["score"]), (mid, score, cube)
        score = cube["score"]
    # The Jacoby rule as set in money play; gnubg writes it off in a match.
    assert cube["jacoby"] == (0 if cube["matchto"] else jacoby), (mid, cube)
    values = [cube["cube"], cube["cubeowner"], cube["move"], cube["crawford"], pos["gamestate"], pos["turn"],
              pos["doubled"], pos["resigned"], pos["dice"][0], pos["dice"][1], cube["matchto"],
              score[0], score[1], cube["jacoby"]]
    lines.append(" ".join([mid] + ["%d" % v for v in values]))


def games_played():
    return len(gnubg.match(analysis=0)["games"])


for length in SELF_PLAY:
    gnubg.command("new match %d" % length if length else "new session")
    while not (length == 0 and games_played() >= MONEY_GAMES):
        played = games_played()
        gnubg.command("new game")
        if games_played() == played:
            break
    # The score before each game, from the match record (player 0 is X);
    # after it, the winner has the points won.
    for number, game in enumerate(gnubg.match(analysis=0)["games"]):
        info = game["info"]
        score = [info["score-X"], info["score-O"]]
        for _ in gnubg_selfplay.records(number):
            record(score)
        score[info["winner"] == "O"] += info["points-won"]
        record(score)

for player in (0, 1):
    gnubg.command("set player %d human" % player)
rng = random.Random(SEED)
for _ in range(BY_HAND):
    length = rng.choice([0, 0, 1, 3, 5, 7, 9, 15, 25])
    jacoby = rng.randrange(2)
    gnubg.command("set jacoby %s" % ["off", "on"][jacoby])
    gnubg.command("new match %d" % length if length else "new session")
    if length > 1:
        a, b = rng.randrange(length), rng.randrange(length)
        if rng.random() < 0.3:
            a = length - 1
        gnubg.command("set score %d %d" % (a, b))
        if length - 1 in (a, b) and rng.random() < 0.5:
            gnubg.command("set crawford %s" % rng.choice(["on", "off"]))
    gnubg.command("set turn %d" % rng.randrange(2))
    gnubg.command("set cube value %d" % (1 << rng.randrange(7)))
    gnubg.command("set cube owner %s" % rng.choice(["0", "1", "centre"]))
    record()
    action = rng.choice(["dice", "roll", "double", "resign", "none"])
    if action == "dice":
        gnubg.command("set dice %d%d" % (rng.randint(1, 6), rng.randint(1, 6)))
    elif action == "roll":
        gnubg.command("roll")
    elif action == "double":
        gnubg.command("double")
    elif action == "resign":
        gnubg.command("resign %s" % rng.choice(["single", "gammon", "backgammon"]))
    record()

with open("gnubg_match_ids.txt", "w") as out:
    out.write("\n".join(lines) + "\n")
