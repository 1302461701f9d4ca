"""One Screen class (thin: properties + calls to ``app.<command>()``) and one .kv per screen."""
