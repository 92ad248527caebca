"""What one seat cannot see: the consistent deals of a view, the dealer, hints,
bid advice and its calibration, the statistics they report. Imports `game`
and `search`."""
