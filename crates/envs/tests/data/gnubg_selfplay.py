# GNU Backgammon playing itself, for the golden scripts beside this file
# (run them from this directory so that they find it).
import gnubg


def configure(seed, cube):
    """Both sides played by gnubg at 0-ply, nothing shown, the dice from
    `seed`, the doubling cube in use or not."""
    gnubg.command("set automatic game off")
    gnubg.command("set display off")
    gnubg.command("set cube use %s" % ("on" if cube else "off"))
    gnubg.command("set seed %d" % seed)
    for player in (0, 1):
        gnubg.command("set player %d gnubg" % player)
        gnubg.command("set player %d chequerplay evaluation plies 0" % player)
        gnubg.command("set player %d cubedecision evaluation plies 0" % player)


def records(game):
    """Steps through the records of game number `game` of the match,
    yielding each with the board and state before it shown (positionid(),
    matchid(), board() ...); afterwards the game's end is shown."""
    records = gnubg.match(analysis=0, boards=1)["games"][game]["game"]
    gnubg.navigate()
    if game:
        gnubg.navigate(game=game)
    for record in records:
        yield record
        gnubg.navigate(next=1)
