"""Phones as private boards: ``popdice table lowdown --serve`` serves each player's board as a
web page on the local network, bound to a random token of that player's."""
