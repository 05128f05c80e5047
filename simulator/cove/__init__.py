"""Pirate's Cove (Days of Wonder, 2003): rules data, combat engines, exact duels and the full game.

Combat modules: :mod:`simulator.cove.battle` (scalar reference battle, the API the full game
calls), :mod:`simulator.cove.combat` (batches of one battle: the compiled kernel
:mod:`simulator.cove.combat_kernel`, or the scalar engine one battle at a time),
:mod:`simulator.cove.duel` (exact Markov-chain duels), :mod:`simulator.cove.combat_policies`
(battle policies) and :mod:`simulator.cove.lethality` (legendary-pirate lethality tables).
"""
