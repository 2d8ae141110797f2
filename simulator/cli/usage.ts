/** The CLI's help text. */
export const HELP = `usage: simcloud <command> [options]

  serve [--host 127.0.0.1] [--port 8787] [--data FILE] [--seed empty|demo|ip-pool-nearly-exhausted]
        [--token T] [--admin-token T] [--speed N] [--delay-ms N] [--rate-limit N/SECONDS]
        [--pool server_public|lb_vip|ip_block|private_networks=CIDR]... [--no-dataplane] [--no-destructive] [--quiet]
        [--allowed-host NAME[:PORT]]... [--faults FILE (JSON: {"faults": [rule as POST /_sim/faults takes it, ...]})]
        (tokens: random and printed once unless given; env SIMCLOUD_TOKEN, SIMCLOUD_ADMIN_TOKEN)
  server list [--selector S] | create --name N [--type T] [--image I] [--zone Z] [--label k=v]...
         | poweroff ID | shutdown ID | poweron ID | reboot ID | delete ID
  lb list [--selector S] | show ID
  ipblock list [--tag k=v]...
  network routes ID
  faults add --kind K [--method M] [--path P] [--probability P] [--count N] [--status S] [--code C]
             [--latency-ms N] [--limit N] [--window-seconds N] [--hide-seconds N] [--label S] [--retry-after N]
       | list | clear

Client commands take --url (SIMCLOUD_URL, default http://127.0.0.1:8787), --token (SIMCLOUD_TOKEN),
--admin-token (SIMCLOUD_ADMIN_TOKEN; both required) and --json.`;
