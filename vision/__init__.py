"""Overhead camera measurement for Takkure. Built under issue 5."""
