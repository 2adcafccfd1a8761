-- Migration 022: the instance lease is gone (docs/decisions.md, "One freshness rule for listings"):
-- every cached listing is checked by a read of its versions, on any number of instances, so no
-- instance needs to know whether it runs alone.
DROP TABLE service_instances;
