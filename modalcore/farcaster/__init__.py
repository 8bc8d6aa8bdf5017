"""Sign in with Farcaster (issue 33): the local auth relay (relay.py), the message checks
(verify.py), the engine's relay client and services (service.py) and the demo client page
(democlient.py)."""
