# Golden GNU Backgammon move notation from GNU Backgammon's own self-play.
#
# Regenerate (from this directory; GNU Backgammon 1.07.001, Debian's gnubg):
#     gnubg -t -q -p gnubg_moves.py
# which writes gnubg_moves.txt in the current directory.
#
# gnubg plays both sides at 0-ply with the cube off, from a fixed seed. At
# every decision with a legal move, the play it made is written as gnubg
# writes it (movetupletostring, the formatter behind its hints and match
# records), followed by the other plays its 0-ply hint list ranks best.
# Then gnubg replays each string from the position as a human would type it
# (set board, set dice, move) and the Position ID it reaches is written
# beside it, from the view of the opponent (who is on roll next; gnubg turns
# the board round after the last checker is borne off too).
import os
import sys

import gnubg

# gnubg -p does not put the script's directory on the module path.
sys.path.insert(0, os.getcwd())
import gnubg_selfplay  # noqa: E402

DECISIONS = 1200
ALTERNATIVES = 5

gnubg_selfplay.configure(seed=20261202, cube=False)
gnubg.command("set evaluation chequerplay evaluation plies 0")

# (id, dice, move) per decision, in the order played.
decisions = []
game = 0
while len(decisions) < DECISIONS:
    gnubg.command("new game")
    for record in gnubg_selfplay.records(game):
        if record["action"] == "move" and record["move"] and len(decisions) < DECISIONS:
            pid = gnubg.positionid()
            assert pid == record["board"], (pid, record)
            played = gnubg.movetupletostring(record["move"], gnubg.board())
            decisions.append((pid, "%d%d" % tuple(record["dice"]), played))
    game += 1

# At each decision set up afresh, with nobody moving or rolling
# automatically (an automatic roll the opponent cannot play would hand the
# dice straight back): the hint list, then every string replayed as typed
# input.
gnubg.command("set automatic roll off")
for player in (0, 1):
    gnubg.command("set player %d human" % player)
lines = [
    "# GNU Backgammon move notation from gnubg self-play (gnubg_moves.py).",
    "# id dice result kind move: the position and roll (player on roll's view),",
    "# the Position ID after gnubg plays the move as typed (the opponent's view),",
    "# played or hint, and gnubg's move.",
]
def set_up(pid, dice):
    gnubg.command("new game")
    gnubg.command("set board " + pid)
    gnubg.command("set dice " + dice)
    assert gnubg.positionid() == pid, (pid, gnubg.positionid())


for pid, dice, played in decisions:
    set_up(pid, dice)
    moves = [("played", played)]
    for hint in gnubg.hint(ALTERNATIVES)["hint"]:
        if hint["move"] != played:
            moves.append(("hint", hint["move"]))
    for kind, move in moves:
        set_up(pid, dice)
        mover = gnubg.cubeinfo()["move"]
        gnubg.command("move " + move)
        result = gnubg.positionid()
        assert gnubg.cubeinfo()["move"] != mover, ("gnubg did not play", pid, dice, move)
        lines.append(" ".join([pid, dice, result, kind, move]))

with open("gnubg_moves.txt", "w") as out:
    out.write("\n".join(lines) + "\n")
