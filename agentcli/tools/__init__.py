"""The tools the model uses to see and change the project: one module each."""
