//! The embedded fleet: a hub and members `member-1`..`member-N`, each a sandbox API server on
//! 127.0.0.1, registered on the hub as in production, with the member simulation (small
//! fleets) and the KubeFleet stand-in running.

pub mod kubeconfig;
pub mod registration;

use crate::runtime::clock::SharedClock;
use crate::sandbox::apiserver::front::{HttpFront, client, serve_http};
use crate::sandbox::apiserver::server::{ApiServer, ServerConfig};
use crate::sandbox::sim::hub::{HubSim, MemberClients, SimHandle as HubHandle};
use crate::sandbox::sim::member::{MemberSim, SimHandle as MemberHandle, create_nodes};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Full pod simulation is for small fleets; larger ones (the scale benchmarks) get idle,
/// registered members.
pub const SIMULATED_MEMBERS_MAX: usize = 50;

#[derive(Debug, Clone)]
pub struct FleetOptions {
    pub members: usize,
    pub nodes_per_member: usize,
    /// Where the kubeconfigs are written.
    pub dir: PathBuf,
    pub seed: u64,
    pub clock: SharedClock,
}

/// One cluster of the fleet.
#[derive(Debug)]
pub struct Cluster {
    pub name: String,
    pub server: Arc<ApiServer>,
    pub http: HttpFront,
    pub kubeconfig: PathBuf,
}

impl Cluster {
    /// An in-process client of this cluster.
    pub fn client(&self) -> kube::Client {
        client(&self.server)
    }
}

/// A running fleet; dropping it stops the simulations and the servers.
pub struct Fleet {
    pub hub: Cluster,
    pub members: Vec<Cluster>,
    pub hub_sim: HubHandle,
    /// The clock the servers and simulations share; whatever joins the fleet reads it too.
    pub clock: SharedClock,
    _member_sims: Vec<MemberHandle>,
}

#[derive(Debug, thiserror::Error)]
pub enum FleetError {
    #[error("cannot serve cluster {cluster} on 127.0.0.1: {source}")]
    Serve {
        cluster: String,
        source: std::io::Error,
    },
    #[error("cannot write {path}: {source}")]
    Write {
        path: String,
        source: std::io::Error,
    },
    #[error("setting up cluster {cluster}: {source}")]
    Api {
        cluster: String,
        source: kube::Error,
    },
}

impl Fleet {
    pub async fn start(opts: &FleetOptions) -> Result<Fleet, FleetError> {
        std::fs::create_dir_all(&opts.dir).map_err(|source| write_error(&opts.dir, source))?;
        let hub = start_cluster("hub", opts.seed, opts).await?;
        let hub_client = hub.client();
        let api = |cluster: &str| {
            let cluster = cluster.to_string();
            move |source| FleetError::Api { cluster, source }
        };
        registration::install_hub_crds(&hub_client)
            .await
            .map_err(api("hub"))?;
        registration::create_system_namespace(&hub_client)
            .await
            .map_err(api("hub"))?;
        let member_clients = MemberClients::new();
        let simulate = opts.members <= SIMULATED_MEMBERS_MAX;
        let mut members = Vec::with_capacity(opts.members);
        let mut member_sims = Vec::new();
        for i in 1..=opts.members {
            let name = format!("member-{i}");
            let member = start_cluster(&name, opts.seed.wrapping_add(i as u64), opts).await?;
            let member_client = member.client();
            registration::install_member_crds(&member_client)
                .await
                .map_err(api(&name))?;
            let text = kubeconfig::kubeconfig_yaml(&name, &member.http.url());
            registration::register_member(&hub_client, &name, &text)
                .await
                .map_err(api("hub"))?;
            if simulate {
                create_nodes(&member_client, opts.nodes_per_member)
                    .await
                    .map_err(api(&name))?;
                member_sims.push(MemberSim::start(member_client.clone(), opts.clock.clone()));
            }
            member_clients.insert(name, member_client);
            members.push(member);
        }
        let hub_sim = HubSim::start(hub_client, member_clients, opts.clock.clone());
        Ok(Fleet {
            hub,
            members,
            hub_sim,
            clock: opts.clock.clone(),
            _member_sims: member_sims,
        })
    }

    pub fn member(&self, name: &str) -> Option<&Cluster> {
        self.members.iter().find(|m| m.name == name)
    }
}

async fn start_cluster(name: &str, seed: u64, opts: &FleetOptions) -> Result<Cluster, FleetError> {
    let config = ServerConfig {
        name: name.to_string(),
        seed,
        clock: opts.clock.clone(),
        ..ServerConfig::default()
    };
    let server = ApiServer::new(config);
    let addr = "127.0.0.1:0".parse().expect("a literal socket address");
    let http = serve_http(server.clone(), addr)
        .await
        .map_err(|source| FleetError::Serve {
            cluster: name.to_string(),
            source,
        })?;
    let kubeconfig = opts.dir.join(format!("{name}.kubeconfig"));
    std::fs::write(&kubeconfig, kubeconfig::kubeconfig_yaml(name, &http.url()))
        .map_err(|source| write_error(&kubeconfig, source))?;
    Ok(Cluster {
        name: name.to_string(),
        server,
        http,
        kubeconfig,
    })
}

fn write_error(path: &Path, source: std::io::Error) -> FleetError {
    FleetError::Write {
        path: path.display().to_string(),
        source,
    }
}
