"""The live view: a read-only web page of the last tower roll and the open game's public
state, for spectators on the local network and for streaming overlays (docs/live-view.md)."""
