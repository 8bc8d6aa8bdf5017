"""The wallet directory (behaviour.md §3 Wallet, §5 platform rules, §7 directory calls, §9 limits).

Two halves, one per layer of the import contract: `domain/` (pure: `wallets`, `query`,
`platform`, `monogram`) and `backend/` (I/O: `hosted`, `source`, `routes`).

- `wallets`: the Wallet record and reading a directory file (`modalcore/data/wallets.json`);
- `query`: `/getWallets` semantics over an in-process directory (filters, search, pages);
- `platform`: mobile, universal-provider and Telegram rules (pure, from the join's env);
- `monogram`: the SVG drawn for a wallet without an image;
- `hosted`: the client of a hosted directory (projectId, st, sv on every call);
- `source`: local or hosted, from the `[directory]` config section; the `directory` service;
- `routes`: the engine's own `/getWallets` and image routes.

The session side lives in `modalcore.slices.directory` and the views that draw it.
"""

from .domain.query import Directory, Page, QueryError, WalletQuery, load_directory
from .domain.wallets import DirectoryError, Wallet

__all__ = ["Directory", "DirectoryError", "Page", "QueryError", "Wallet", "WalletQuery", "load_directory"]
