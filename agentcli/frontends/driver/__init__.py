"""The one way a front end drives the engine through a turn (turn.py), the answers
to its permission questions (questions.py) and its tally (tally.py)."""

from agentcli.frontends.driver.tally import TurnTally
from agentcli.frontends.driver.turn import FrontEnd, TurnEngine, drive

__all__ = ["FrontEnd", "TurnEngine", "TurnTally", "drive"]
