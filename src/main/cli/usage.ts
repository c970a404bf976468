/**
 * The CLI's usage text. The entry prints it for `--help`, and the pointer to it after a usage error, without loading
 * any command's code, so it imports only the words the sign command's flags take.
 */
import { HASH_FUNCTION_WORDS, PAYLOAD_ENCODING_WORDS, TRANSACTION_TYPE_WORDS } from '../../shared/describe/signing-words';
import { flagAlternatives } from './signing-flags';

/** After a usage error: the command line's shape, and where the whole of it is. */
export const USAGE_POINTER =
  'usage: quorumkey [--data-dir DIR] [--profile NAME|ID] <command> [flags]; quorumkey --help lists every command and its flags';

export const USAGE = `usage: quorumkey [--data-dir DIR] [--profile NAME|ID] <command>
  sandbox init | sandbox status | sandbox reset   (init: the Sandbox's key, database and profile, as the app's first
          run makes them; other commands start it for their own duration; reset asks for a typed phrase on stdin)
  profiles list | profiles use PROFILE | profiles remove PROFILE
  profiles add --name NAME --base-url URL --organization ID --api-key KEY_NAME [--signer-public-key HEX]
  profiles add --name NAME --base-url URL --organization ID --pkcs11-module PATH --pkcs11-token LABEL
          --pkcs11-key LABEL [--pkcs11-key-id HEX] [--api-key NAME]   (signs with a key on a PKCS#11 token)
  profiles edit PROFILE [--name NAME] [--base-url URL] [--organization ID] [--api-key KEY_NAME] [--signer-public-key HEX]
          (a new service URL or enclave signer is shown on stderr and needs "yes" typed on stdin)
  keys generate NAME [--curve p256|secp256k1|ed25519] | keys list | keys delete NAME
  keys generate NAME --pkcs11 --pkcs11-module PATH --pkcs11-token LABEL | keys list --pkcs11 --pkcs11-module PATH
          --pkcs11-token LABEL   (a P-256 key made on the token, which never lets it out; the token's PIN is
          read from QK_PKCS11_PIN or asked on the terminal)
  users credentials USER [--json]   (USER is an id or a name: each API key and authenticator with its kind in words,
          the profiles here that sign with it, and what removing it leaves, or why QuorumKey refuses that)
  users move-to-token USER --pkcs11-module PATH --pkcs11-token LABEL --pkcs11-key LABEL [--pkcs11-key-id HEX]
          [--remove KEY_ID|NAME]   (adds the token key to USER as an API key, switches this desktop's profiles that
          signed with the old key to it, then removes the old key: the one keychain key a profile here signs with, or
          the one --remove names; each request is shown on stderr before it is sent, the removal needs "yes" typed on
          stdin, and QuorumKey refuses it when it would leave a root quorum member or a profile with no working key)
  encryption-keys generate NAME | encryption-keys list | encryption-keys delete NAME
  request --path P --body JSON|@FILE [--no-post [--output FILE]]   (--no-post: a stamped-request file, printed or
          written to FILE, for post-stamped or the app's Approvals screen to send later)
  post-stamped FILE   (sends a stamped-request file exactly as stamped: from request --no-post or the app)
  activities list [--status S] [--limit 1-100] [--before ACTIVITY_ID]   (newest first; --before pages back)
  activities approve FINGERPRINT | activities reject FINGERPRINT
  policies rehearse --draft FILE [--last N | --since DATE] [--json]   (replays recorded activities against the current
          policies and the draft: a JSON array of policies as get_policies returns them, {"policyId", "deleted": true}
          to remove one; prints what it cannot reproduce, then the outcomes the draft changes)
  policies lint --draft FILE [--json]   (the policy linter's warnings and errors on each policy of the same draft file;
          exit 1 when one is an error)
  wallets list | wallets create NAME [--chain ethereum|bitcoin|solana|cosmos|tron]...   (one account per --chain;
          ethereum when none is given)
  sign transaction --sign-with ADDRESS|KEY_ID --type ${flagAlternatives(TRANSACTION_TYPE_WORDS)} --unsigned HEX|@FILE [--preview | --no-post [--output FILE]]
  sign payload --sign-with ADDRESS|KEY_ID --payload TEXT|@FILE [--encoding ${flagAlternatives(PAYLOAD_ENCODING_WORDS)}]
          [--hash ${flagAlternatives(HASH_FUNCTION_WORDS)}] [--preview | --no-post [--output FILE]]
          (prints what it signs, where the policies stand and what a transaction would do on the node Settings
          name for its chain, then submits; --preview stops before submitting; --no-post stamps it offline
          instead, described without the organization's names or policies but with this desktop's address book;
          the description goes to stderr when the stamped request itself is printed)
  simulate ACTIVITY_ID [--save-state-bundle FILE | --state-bundle FILE]   (what a signing activity's transaction
          would do on the node Settings name for its chain; --save-state-bundle writes the state it read, each value
          with the node's proof, to a new FILE; --state-bundle simulates from such a FILE without a node, every proof
          checked against the block it names)
  wallets export --wallet ID|NAME (--encryption-key NAME | --target-public-key HEX) --output FILE
  decrypt --bundle FILE (--encryption-key NAME | --encryption-key-file FILE) --organization ID
          [--signer-public-key HEX] [--key-format mnemonic|hexadecimal|solana|wif-mainnet|wif-testnet]
          [--plaintext-output FILE|-]
  encrypt --import-bundle FILE --plaintext-input FILE --organization ID --user ID
          --key-format mnemonic|hexadecimal|solana [--signer-public-key HEX] --output FILE
  journal verify FILE [--checkpoint FILE] [--attestation-root SHA256]...   (offline; exit 0 valid, 1 tampered: the
          first bad entry on stderr; app proofs are checked against AWS Nitro's root and each root given, e.g. a
          Sandbox's from the app's Settings; proofs under any other root verify but are named as not pinned)
  journal export [--from DATE] [--to DATE] --output FILE   (JSON lines, and FILE's checkpoint beside it; DATE is
          2026-11-26 or an ISO time; without dates the whole journal)
  journal checkpoint --output FILE   (a signed checkpoint of the journal's head, for an auditor to keep)
  clear-signing test FIXTURE.tests.json... (--output FILE | --output-dir DIR)   (the ERC-7730 registry's conformance
          runner: each fixture's results.json; exit 1 when a case fails or errs)
  clear-signing refresh --from FOLDER|FILE.tar.gz [--output FILE]   (checks a copy of the ERC-7730 registry and
          writes the descriptors the app ships; run from the repository's root)`;
