// Package client is a small typed client for simcloud's /v1 API: the resources a cloud-controller-manager
// needs (servers, load balancers, server groups, firewall policies, networks and their routes, IP blocks,
// actions), with the request headers simcloud's console and call log understand.
//
// Every request carries "Authorization: Bearer <token>", an "X-Request-Id" shared by the retries of one
// call, and, when the context says so (see WithCaller), "X-Simcloud-Caller: <controller> <object key>" and
// "X-Simcloud-Method: <cloud-provider method>". Retries follow one rule: a 429 (rate limit) or 423 (locked)
// answer means the request was not carried out, so any method is retried after Retry-After or a backoff;
// a 5xx answer or a network error is retried only for idempotent methods (GET, PUT, DELETE), so a POST or
// PATCH that may have been committed is never sent twice.
package client
