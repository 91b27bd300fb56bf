"""graphlint's version, in a module of its own: the run layer's result cache keys on it, and importing the
package root (which holds the Pylint plugin's entry point) would reach up to the front ends."""

__version__ = "0.1.0"
