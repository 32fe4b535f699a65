"""Exporters turn the graph into files. `exporters.wiki` writes the markdown wiki."""
