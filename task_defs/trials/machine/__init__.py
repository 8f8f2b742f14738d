"""A deterministic mock machine for the tool-use trials of kind `machine`: an Arch-style desktop as plain data.

Nothing here touches the host. The machine is a fixture state (state.py: packages installed and available,
systemd units, desktop settings), a few programs written in Python that read and change it the way the real ones do
in the subset used (pacman.py, programs.py with systemctl, sudo and a few builtins, deskctl.py: a desktop CLI of
our own), and a small interpreter of the command lines a model sends (shell.py: `;`, `&&`, `||`, newlines, quoting;
no pipes, redirection, substitution nor variables). fixtures.py holds the named fixture states; oracle.py grades a
trial from the state the commands leave, never from what they print.
"""
