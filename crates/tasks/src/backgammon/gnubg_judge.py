# GNU Backgammon plays itself and rates every play of every roll it meets,
# for minnow's gnubg judge (gnubg_judge.rs runs it as
#     gnubg -t -q -p gnubg_judge.py
# with MINNOW_JUDGE_POSITIONS and MINNOW_JUDGE_SEED in the environment).
#
# Money play, cube off, Jacoby rule off (gammons count), every evaluation
# cubeless at 0-ply. At each decision with a legal play, one line on
# standard output, tab-separated:
#     minnow-judge  POSITION-ID  DICE  MOVE  EQUITY  MOVE  EQUITY ...
# every distinct play of the roll in gnubg's notation with its equity for
# the player on roll, best first; then gnubg plays the best and rolls on.
import os

import gnubg

POSITIONS = int(os.environ["MINNOW_JUDGE_POSITIONS"])
SEED = int(os.environ["MINNOW_JUDGE_SEED"])
ALL_PLAYS = 10000

for command in [
    "set automatic game off",
    "set automatic roll on",
    "set display off",
    "set cube use off",
    "set jacoby off",
    "set seed %d" % SEED,
    "set evaluation chequerplay evaluation plies 0",
    "set evaluation chequerplay evaluation cubeful off",
    "set player 0 human",
    "set player 1 human",
]:
    gnubg.command(command)

written = 0
while written < POSITIONS:
    gnubg.command("new game")
    while written < POSITIONS and gnubg.posinfo()["gamestate"] == 1:
        dice = gnubg.posinfo()["dice"]
        if not dice[0]:
            gnubg.command("roll")
            continue
        plays = gnubg.hint(ALL_PLAYS)["hint"]
        fields = ["minnow-judge", gnubg.positionid(), "%d%d" % dice]
        for play in plays:
            fields += [play["move"], "%.6f" % play["equity"]]
        print("\t".join(fields), flush=True)
        written += 1
        gnubg.command("move " + plays[0]["move"])
