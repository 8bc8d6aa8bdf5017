"""The embedded wallet's server side (issue 15): email one-time codes, mail, keys at rest."""
