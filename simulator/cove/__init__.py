"""Pirate's Cove (Days of Wonder, 2003): rules data, combat engines, exact duels and the full game.

Combat modules: :mod:`simulator.cove.combat` (batches of one battle, played by the compiled kernel
:mod:`simulator.cove.combat_kernel` on the rule core :mod:`simulator.cove.fast.core`),
:mod:`simulator.cove.duel` (exact Markov-chain duels), :mod:`simulator.cove.combat_policies`
(battle policies) and :mod:`simulator.cove.lethality` (legendary-pirate lethality tables). The
full game is :mod:`simulator.cove.fast`. The scalar reference battle is a test oracle
(``tests/cove_battle_oracle.py``).
"""
