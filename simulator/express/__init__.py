"""Pirates express: fleets, gunnery and boarding, battles, commanders (issue 5)."""
