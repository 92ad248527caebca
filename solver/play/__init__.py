"""Players: the bots, the duplicate arena, and the calibration runs that play
many hands. Imports the layers below."""
