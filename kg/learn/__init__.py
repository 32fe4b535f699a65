"""The learning layer: flashcards from the graph, spaced repetition (FSRS), gaps, and exports."""
