# What GNU Backgammon reads from a .mat file minnow wrote.
#
# Regenerate (from this directory; GNU Backgammon 1.07.001, Debian's gnubg),
# after minnow_games.mat (see ../gnubg_mat.rs):
#     gnubg -t -q -p gnubg_mat.py
# which writes gnubg_mat.txt in the current directory.
#
# gnubg imports minnow_games.mat (Jacoby rule off: minnow scores gammons)
# and goes through every record of every game: for each turn, the Position
# ID before it as gnubg computed it (player on roll's view), the roll, and
# the play as gnubg writes it (movetupletostring; "-" for a roll that
# cannot be played); after each game, the winner (0 or 1) and the points
# won.
import gnubg

gnubg.command("set automatic game off")
gnubg.command("set display off")
gnubg.command("set jacoby off")
gnubg.command("import mat minnow_games.mat")

lines = [
    "# What gnubg read from minnow_games.mat (gnubg_mat.py): per turn",
    "# 'turn ID DICE PLAY' (PLAY '-' when the roll cannot be played), per game",
    "# 'wins PLAYER POINTS'.",
]
games = gnubg.match(analysis=0, boards=1)["games"]
assert games, "gnubg imported no game"
for game in games:
    for record in game["game"]:
        assert record["action"] == "move", record
        pid, move = record["board"], record["move"]
        play = gnubg.movetupletostring(move, gnubg.positionfromid(pid)) if move else "-"
        lines.append("turn %s %d%d %s" % (pid, record["dice"][0], record["dice"][1], play))
    info = game["info"]
    assert not info["resigned"], info
    lines.append("wins %d %d" % ("XO".index(info["winner"]), info["points-won"]))

with open("gnubg_mat.txt", "w") as out:
    out.write("\n".join(lines) + "\n")
