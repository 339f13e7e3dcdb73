"""What every command line of the package shares: argument types, one-line messages,
progress bars and aligned columns. Imports nothing else of popdice."""
