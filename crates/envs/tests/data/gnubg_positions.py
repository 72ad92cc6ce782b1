# Golden GNU Backgammon Position IDs from GNU Backgammon's own self-play.
#
# Regenerate (from this directory; GNU Backgammon 1.07.001, Debian's gnubg):
#     gnubg -t -q -p gnubg_positions.py
# which writes gnubg_positions.txt in the current directory.
#
# gnubg plays both sides at 0-ply with the cube off, from a fixed seed; every
# position before a move is written with gnubg's positionid() and gnubg's
# board(), whose first list is the player not on roll and second the player
# on roll, each counting checkers on that player's points 1..24 then the bar.
import os
import sys

import gnubg

# gnubg -p does not put the script's directory on the module path.
sys.path.insert(0, os.getcwd())
import gnubg_selfplay  # noqa: E402

POSITIONS = 1000
lines = [
    "# GNU Backgammon Position IDs from gnubg self-play (gnubg_positions.py).",
    "# id dice on-roll off-roll: each side 25 hex digits, checkers on its",
    "# points 1..24 (its own numbering) then the bar, as gnubg.board() gives.",
]
gnubg_selfplay.configure(seed=20261202, cube=False)

hex_digits = lambda side: "".join("%x" % n for n in side)
count = 0
game = 0
while count < POSITIONS:
    gnubg.command("new game")
    for record in gnubg_selfplay.records(game):
        if record["action"] == "move" and count < POSITIONS:
            pid = gnubg.positionid()
            off_roll, on_roll = gnubg.board()
            assert pid == record["board"], (pid, record)
            assert gnubg.positionfromid(pid) == (off_roll, on_roll), pid
            dice = "%d%d" % tuple(record["dice"])
            lines.append(" ".join([pid, dice, hex_digits(on_roll), hex_digits(off_roll)]))
            count += 1
    game += 1

with open("gnubg_positions.txt", "w") as out:
    out.write("\n".join(lines) + "\n")
