"""The GitHub Action's side: a thin REST client, the action's inputs and outputs, comment and check run."""
